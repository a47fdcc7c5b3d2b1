/**
 * Fold-mode replay: steps an episode's log through the pure machine, without Docker or an agent,
 * and checks determinism against the state digests the log recorded (each decision's
 * `stateDigest`, and the final `snapshotDigest`).
 */
import {
  applyEvent,
  initialSnapshot,
  isEventRejected,
  stateName,
  type FoldedSnapshot,
} from '../../machines/index.js';
import type { ActionExecuted, AgentDecided, EpisodeEvent } from '../../streams/index.js';
import { snapshotDigest } from '../episode/index.js';
import { ReplayDivergenceError } from './errors.js';

const HARNESS = new Set<EpisodeEvent['type']>([
  'stage.checked',
  'workspace.snapshotted',
  'snapshot.skipped',
  'sandbox.lost',
  'episode.resumed',
  'infra.failed',
  'artifact.handed_off',
  'episode.claimed',
]);

/** One round as the replay viewer shows it. */
export interface RoundView {
  round: number;
  /** The observation the agent decided on. */
  observation: string;
  /** Digest of that observation's screenshot in the object store (GUI episodes). */
  screenshot: string | null;
  decided: AgentDecided | null;
  actions: ActionExecuted[];
  /**
   * What the harness did in the round besides the agent's actions: stage checks, snapshots, lost
   * sandboxes, resumes, infrastructure faults.
   */
  harness: EpisodeEvent[];
  /** Machine state after the round's last event. */
  stateAfter: string;
  /** Digest recorded with the decision (null for v1 logs), and the folded one. */
  recordedDigest: string | null;
  foldedDigest: string;
  /** Event indexes (0-based, inclusive) the round spans. */
  fromEvent: number;
  toEvent: number;
}

export interface Timeline {
  events: EpisodeEvent[];
  rounds: RoundView[];
  final: FoldedSnapshot;
  /** Digests compared (per decision, and the final one). */
  checked: number;
}

/**
 * Folds `events`, checking every recorded digest.
 * @throws ReplayDivergenceError naming the first round whose recorded digest differs, or whose
 *   events the machine's rules do not accept (machine 2 logs).
 */
export function buildTimeline(events: readonly EpisodeEvent[]): Timeline {
  let snap: FoldedSnapshot = initialSnapshot();
  const rounds: RoundView[] = [];
  let current: RoundView | null = null;
  let observation = '';
  let screenshot: string | null = null;
  let checked = 0;
  events.forEach((e, i) => {
    if (e.type === 'observation.recorded') {
      observation = e.text;
      screenshot = e.screenshot ?? null;
      current = null; // the next round's observation closes this round
    }
    if (e.type === 'agent.decided') {
      const folded = snapshotDigest(snap);
      if (e.stateDigest !== null) {
        checked++;
        // The state a decision was made on is the work of the round before it.
        if (e.stateDigest !== folded)
          throw new ReplayDivergenceError(Math.max(1, e.round - 1), i, e.stateDigest, folded);
      }
      current = {
        round: e.round,
        observation,
        screenshot,
        decided: e,
        actions: [],
        harness: [],
        stateAfter: '',
        recordedDigest: e.stateDigest,
        foldedDigest: folded,
        fromEvent: i,
        toEvent: i,
      };
      rounds.push(current);
    }
    if (e.type === 'episode.ended') {
      const folded = snapshotDigest(snap);
      checked++;
      if (e.snapshotDigest !== folded)
        throw new ReplayDivergenceError(Math.max(1, e.rounds), i, e.snapshotDigest, folded);
    }
    try {
      snap = applyEvent(snap, e, i);
    } catch (err) {
      if (!isEventRejected(err)) throw err;
      // The round whose rules were broken: the rounds decided when the event came.
      throw new ReplayDivergenceError(
        Math.max(1, err.round),
        i,
        err.expected,
        `${e.type} in state ${err.state}`,
        'rejected',
      );
    }
    if (current) {
      if (e.type === 'action.executed') current.actions.push(e);
      if (HARNESS.has(e.type)) current.harness.push(e);
      current.toEvent = i;
      current.stateAfter = stateName(snap);
    }
  });
  return { events: [...events], rounds, final: snap, checked };
}
