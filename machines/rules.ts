/**
 * The machine's rules version, its behaviour flags, and the rules of one episode as recorded in
 * `episode.started` (Temporal's pattern: a log replays with the rules it was written under).
 *
 * Bump {@link MACHINE_VERSION} when a change to `episode.machine.ts` would fold a recorded log
 * differently, and keep the old machine as a frozen copy under `legacy/` for the logs written under
 * it. A smaller change that only some episodes should get goes behind a numbered flag: add it to
 * {@link FLAGS} with what it changes, record it in `episode.started.flags` for new episodes, and
 * test it in the machine with `context.flags.includes(n)`.
 */
import type { RulesRecord } from '../streams/index.js';
import { stagesOf, type Task } from '../tasks/index.js';

/** Rules version new episodes run under. 1: the frozen machine of event versions 1 and 2. */
export const MACHINE_VERSION = 2 as const;

/** Every rules version this build can fold. */
export const MACHINE_VERSIONS: readonly number[] = [1, 2];

/**
 * Numbered behaviour flags this build knows, with what each changes. None yet: a log that names a
 * flag not listed here was written by a newer engiloop, and folding it is refused.
 */
export const FLAGS: Readonly<Record<number, string>> = Object.freeze({});

/** Flags new episodes record (every flag this build knows). */
export const CURRENT_FLAGS: readonly number[] = Object.keys(FLAGS).map(Number);

/** Overrides of the task's rules a run may set. */
export interface RuleOverrides {
  /** Snapshot interval, in place of `limits.snapshot_every`. */
  snapshotEvery?: number;
}

/** The rules of an episode of `task`: what `episode.started.rules` records. */
export function rulesFor(task: Task, o: RuleOverrides = {}): RulesRecord {
  // A GUI app's state is in its memory, not in files: its sandboxes are restored by re-running
  // every action from the start, so snapshots would not be used; and a GUI batch stops at its first
  // failing action (AutoCAD-Bench's rule).
  const gui = task.interface === 'gui';
  return {
    maxRounds: task.limits.max_rounds,
    wallClockMs: task.limits.wall_clock_sec * 1000,
    historyWindow: task.history_window,
    stopAtFirstFailure: gui,
    snapshotEvery: gui ? 0 : (o.snapshotEvery ?? task.limits.snapshot_every),
    snapshotAfterStages: !gui,
    stages: stagesOf(task).map((st) => ({
      name: st.name,
      haltOnFail: st.halt_on_fail,
      after: st.after ?? null,
      minScore: st.min_score,
    })),
    sandboxRetries: task.limits.sandbox_retries,
  };
}
