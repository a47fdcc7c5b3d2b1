/**
 * Machine-only episodes for the machine's own tests: a task from a few fields, and a driver that
 * plays the runner's protocol without Docker or an agent — it takes each effect the machine asks for
 * (machines/effects.ts) and records the outcome a script gives, exactly as actors/episode does, so
 * the logs it makes are logs the machine must accept, and altering them must be caught.
 */
import { snapshotDigest } from '../../actors/episode/index.js';
import {
  effectOf,
  initialSnapshot,
  MACHINE_VERSION,
  rulesFor,
  step,
  type Effect,
  type EpisodeSnapshot,
} from '../../machines/index.js';
import {
  EVENT_VERSION,
  type ActionRecord,
  type CommandResultRecord,
  type EpisodeEvent,
  type EventDraft,
} from '../../streams/index.js';
import { TaskSchema, taskRecord, type Task } from '../../tasks/index.js';

export const ok: CommandResultRecord = {
  stdout: '',
  stderr: '',
  exitCode: 0,
  durationMs: 1,
  truncated: false,
  timedOut: false,
};
export const failed: CommandResultRecord = { ...ok, exitCode: 1, stderr: 'no' };
export const sh = (command = 'true'): ActionRecord => ({ type: 'shell', command });

/** A validated task: CLI with one sandbox unless `over` says otherwise (any task.yaml fields). */
export function machineTask(over: Record<string, unknown> = {}): Task {
  const t = TaskSchema.parse({
    id: 't1',
    title: 'T',
    domain: 'cad',
    type: 'single-software',
    interface: 'cli',
    objective: 'make part.stl',
    environment: { sandboxes: { main: { image: 'engiloop/cli:latest' } } },
    deliverables: [{ path: 'part.stl', format: 'stl' }],
    criteria: [{ id: 'present', verifier: 'file.format', deliverable: 'part.stl' }],
    reference: [{ type: 'shell', command: 'true' }],
    ...over,
    limits: { max_rounds: 3, wall_clock_sec: 100, ...(over.limits as object | undefined) },
  });
  return t as Task;
}

/** What the script answers for each effect; anything left out gets a plain default. */
export interface Script {
  /** The agent's decision for `round` (default: done). */
  decide?: (round: number) => Extract<EventDraft, { type: 'agent.decided' }>['decision'];
  /** Result of an action (default ok). */
  result?: (round: number, index: number, action: ActionRecord) => CommandResultRecord;
  /** Stage checks a sweep records (default none). */
  stages?: (
    round: number,
    after: 'round' | 'handoff' | 'final',
  ) => Extract<EventDraft, { type: 'stage.checked' }>[];
  /** Score the final verification gives (default 1). */
  score?: number;
  /** A fault to record before carrying out the n-th effect (0-based), instead of it. */
  fault?: (effect: Effect, n: number, snap: EpisodeSnapshot) => EventDraft | null;
  /** Clock step per event in ms (default 10). */
  tick?: number;
  /** Stop before the n-th effect (to get a half-done log). */
  stopAt?: number;
}

export interface MachineRun {
  events: EpisodeEvent[];
  effects: Effect[];
  snap: EpisodeSnapshot;
}

/** Plays the episode of `task` to its end under `script`. */
export function playEpisode(
  task: Task,
  script: Script = {},
  overrides: { snapshotEvery?: number } = {},
): MachineRun {
  let at = 1_000_000;
  let snap = initialSnapshot();
  const events: EpisodeEvent[] = [];
  const effects: Effect[] = [];
  const emit = (d: EventDraft) => {
    const e = { ...d, v: EVENT_VERSION, at: (at += script.tick ?? 10) } as EpisodeEvent;
    snap = step(snap, e);
    events.push(e);
  };
  for (let n = 0, effect = effectOf(snap); effect; n++, effect = effectOf(snap)) {
    if (n === script.stopAt) break;
    if (n > 500) throw new Error('the episode does not end');
    effects.push(effect);
    const fault = script.fault?.(effect, n, snap);
    if (fault) {
      emit(fault);
      continue;
    }
    switch (effect.type) {
      case 'start':
        emit({
          type: 'episode.started',
          episodeId: 'e1',
          runId: 'r1',
          machine: MACHINE_VERSION,
          flags: [],
          rules: rulesFor(task, overrides),
          task: taskRecord(task),
          agent: 'scripted',
        });
        break;
      case 'provision':
        emit({ type: 'sandbox.provisioned', sandboxes: { main: 'c1' } });
        break;
      case 'observe':
        emit({ type: 'observation.recorded', round: effect.round, text: `round ${effect.round}` });
        break;
      case 'decide':
        emit({
          type: 'agent.decided',
          round: effect.round,
          raw: {},
          decision: script.decide?.(effect.round) ?? { kind: 'done' },
          latencyMs: 1,
          stateDigest: snapshotDigest(snap),
        });
        break;
      case 'execute':
      case 'skip':
      case 'handoff': {
        const { round, index, action } = effect;
        emit({ type: 'action.started', round, index, action });
        if (effect.type === 'handoff')
          emit({
            type: 'artifact.handed_off',
            round,
            index,
            from: { sandbox: effect.action.from, path: effect.action.path },
            to: { sandbox: effect.action.to, path: effect.action.path },
            digest: 'd'.repeat(64),
            bytes: 1,
            format: 'stl',
            declared: 'stl',
            producedAt: null,
            durationMs: 1,
          });
        const result =
          effect.type === 'skip'
            ? { ...ok, exitCode: null, stderr: 'skipped', skipped: true }
            : (script.result?.(round, index, action) ?? ok);
        emit({ type: 'action.executed', round, index, action, result });
        break;
      }
      case 'checkStages':
        for (const d of script.stages?.(effect.round, effect.after) ?? []) emit(d);
        emit({ type: 'stages.swept', round: effect.round, after: effect.after });
        break;
      case 'snapshot':
        emit({
          type: 'workspace.snapshotted',
          round: effect.round,
          reason: effect.reason,
          sandboxes: { main: { digest: 'a'.repeat(64), bytes: 10 } },
          durationMs: 1,
        });
        break;
      case 'restore':
        emit({
          type: 'episode.resumed',
          worker: 'w:1',
          state: effect.state,
          reason: effect.reason,
          sandboxes: {},
          replayed: 0,
          divergences: [],
          interrupted: null,
        });
        break;
      case 'verify':
        emit({
          type: 'verification.completed',
          verdicts: [],
          score: script.score ?? 1,
          passed: (script.score ?? 1) === 1,
          artifacts: {},
        });
        break;
      case 'finish':
        emit({
          type: 'episode.ended',
          status: effect.status,
          score: effect.score,
          rounds: effect.rounds,
          snapshotDigest: snapshotDigest(snap),
        });
        break;
    }
  }
  return { events, effects, snap };
}

/** The effect types in order, for readable expectations. */
export const kinds = (effects: readonly Effect[]): string[] =>
  effects.map((e) =>
    'index' in e ? `${e.type}:${e.round}.${e.index}` : 'round' in e ? `${e.type}:${e.round}` : e.type,
  );
