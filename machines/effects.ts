/**
 * The effects the episode machine asks for: the one list of their names and parameters, and which
 * state asks for which (`effectOf`). The runner takes the next effect from the snapshot, carries it
 * out, and records its outcome as events; a state with no effect here is an error, never a default.
 */
import type { ActionRecord, EpisodeStatus } from '../streams/index.js';
import type { EpisodeContext, Phase, SweepAfter } from './context.js';
import { endScore } from './episode.logic.js';
import type { EpisodeMachine } from './episode.machine.js';
import { MachineError } from './errors.js';
import type { SnapshotFrom } from 'xstate';

type HandoffRecord = Extract<ActionRecord, { type: 'handoff' }>;

/** One effect, with everything the runner needs to carry it out. Outcome events in brackets. */
export type Effect =
  /** Record the episode's start [`episode.started`]. */
  | { type: 'start' }
  /** Create the sandboxes and put the inputs in [`sandbox.provisioned`]. */
  | { type: 'provision' }
  /** Show the agent where things stand before decision `round` [`observation.recorded`]. */
  | { type: 'observe'; round: number }
  /** Ask the agent for decision `round` [`agent.retried`…, `agent.decided`]. */
  | { type: 'decide'; round: number }
  /** Run action `index` of `round` [`action.started`, `action.executed`]. */
  | { type: 'execute'; round: number; index: number; action: ActionRecord }
  /** Record action `index` as not run: an earlier action of the batch failed [as `execute`]. */
  | { type: 'skip'; round: number; index: number; action: ActionRecord }
  /** Carry out hand-off `index` [`action.started`, `artifact.handed_off`?, `action.executed`]. */
  | { type: 'handoff'; round: number; index: number; action: HandoffRecord }
  /** Check the stages whose deliverables appeared or changed [`stage.checked`…, `stages.swept`]. */
  | { type: 'checkStages'; round: number; after: SweepAfter }
  /** Save the sandboxes' workspaces [`workspace.snapshotted` or `snapshot.skipped`]. */
  | { type: 'snapshot'; round: number; reason: 'interval' | 'stage' }
  /**
   * Rebuild the sandboxes interrupted in `state` (from the latest snapshot, then re-running the
   * actions after it) [`episode.resumed`]. `rebuild` false: there were none yet.
   */
  | { type: 'restore'; reason: 'worker_lost' | 'sandbox_lost'; state: Phase; rebuild: boolean }
  /** Collect the deliverables and run the verifiers [`verification.completed`]. */
  | { type: 'verify' }
  /** Record the end [`episode.ended`]. */
  | { type: 'finish'; status: EpisodeStatus; score: number | null; rounds: number };

export type EpisodeSnapshot = SnapshotFrom<EpisodeMachine>;

/** Dotted path of the innermost state, e.g. `running.live.acting`. */
export function statePath(s: { value: unknown }): string {
  const parts: string[] = [];
  let v: unknown = s.value;
  while (v !== null && typeof v === 'object') {
    const [k, inner] = Object.entries(v as Record<string, unknown>)[0]!;
    parts.push(k);
    v = inner;
  }
  parts.push(String(v));
  return parts.join('.');
}

function actionEffect(c: EpisodeContext): Effect {
  const action = c.pending[c.executed]!;
  const at = { round: c.round, index: c.executed };
  if (c.skipping) return { type: 'skip', ...at, action };
  if (action.type === 'handoff') return { type: 'handoff', ...at, action };
  return { type: 'execute', ...at, action };
}

const finish = (c: EpisodeContext): Effect => ({
  type: 'finish',
  status: c.status!,
  score: endScore(c),
  rounds: c.round,
});

/** State path → the effect it waits for (null: none, the episode is over). */
const EFFECT_OF: Readonly<Record<string, (c: EpisodeContext) => Effect | null>> = {
  idle: () => ({ type: 'start' }),
  'running.live.provisioning': () => ({ type: 'provision' }),
  'running.live.observing': (c) => ({ type: 'observe', round: c.round + 1 }),
  'running.live.deciding': (c) => ({ type: 'decide', round: c.round + 1 }),
  'running.live.acting': actionEffect,
  'running.live.checking_stages': (c) => ({ type: 'checkStages', round: c.round, after: c.sweep!.after }),
  'running.live.snapshotting': (c) => ({ type: 'snapshot', round: c.round, reason: c.snapshot!.reason }),
  'running.live.verifying.stages': (c) => ({ type: 'checkStages', round: c.round, after: 'final' }),
  'running.live.verifying.scoring': () => ({ type: 'verify' }),
  'running.restoring': (c) => ({
    type: 'restore',
    reason: c.restore!.reason,
    state: c.phase,
    rebuild: c.provisioned,
  }),
  done: finish,
  failed: finish,
  limit: finish,
  infra_error: finish,
  ended: () => null,
};

/**
 * The effect the machine waits for in `snapshot`, or null once `episode.ended` is recorded.
 * @throws MachineError `NO_EFFECT` for a state with no effect listed.
 */
export function effectOf(snapshot: EpisodeSnapshot): Effect | null {
  const path = statePath(snapshot);
  const of = EFFECT_OF[path];
  if (!of) throw new MachineError('NO_EFFECT', `no effect is listed for state ${path} (machines/effects.ts)`);
  return of(snapshot.context);
}

/** An effect in words, e.g. `execute (round 3, action 2)`: what a state is waiting for. */
export function describeEffect(e: Effect | null): string {
  if (!e) return 'nothing more (the episode has ended)';
  switch (e.type) {
    case 'execute':
    case 'skip':
    case 'handoff':
      return `the outcome of ${e.type} (round ${e.round}, action ${e.index + 1})`;
    case 'observe':
    case 'decide':
      return `the outcome of ${e.type} (round ${e.round})`;
    case 'checkStages':
      return `stage checks after the ${e.after === 'round' ? 'round' : e.after === 'handoff' ? 'hand-off' : 'episode'} (round ${e.round}), ending in stages.swept`;
    case 'snapshot':
      return `${e.reason === 'interval' ? 'an interval' : 'a stage'} snapshot (round ${e.round}): workspace.snapshotted or snapshot.skipped`;
    case 'restore':
      return `episode.resumed (${e.reason}) restoring ${e.state}`;
    case 'finish':
      return `episode.ended with status ${e.status}, score ${e.score ?? 'null'}, ${e.rounds} round(s)`;
    default:
      return `the outcome of ${e.type}`;
  }
}
