/**
 * What detectors read: an episode's events with their stream sequence numbers, the round each
 * belongs to, and the task as the log recorded it (never today's task file).
 */
import type { EpisodeEvent, RulesRecord } from '../../streams/index.js';
import { taskFromRecord, type Task } from '../../tasks/index.js';
import { AnalysisError } from './errors.js';
import { MODES, type Finding, type ModeId } from './taxonomy.js';

/** One event of the view, with where it sits. */
export interface Located<E extends EpisodeEvent = EpisodeEvent> {
  event: E;
  /** Stream sequence number (or the position in the log, 1-based, for a log read without them). */
  seq: number;
  /** The round it belongs to: its own `round`, else the latest before it (0 before round 1). */
  round: number;
}

/** An episode for the detectors. */
export interface EpisodeView {
  episodeId: string;
  task: Task;
  /** The episode's rules as recorded (limits, stages); null for logs older than machine 2. */
  rules: RulesRecord | null;
  /** The agent spec. */
  agent: string;
  events: Located[];
}

/**
 * Builds the view of a log that starts with `episode.started`. `seqs[i]` is the stream sequence of
 * `events[i]`; without it the 1-based position stands in.
 *
 * @throws AnalysisError `NOT_AN_EPISODE` when the log does not start with `episode.started`;
 *   `TASK_UNREADABLE` when its recorded task does not validate with this build.
 */
export function episodeView(events: readonly EpisodeEvent[], seqs?: readonly number[]): EpisodeView {
  const first = events[0];
  if (first?.type !== 'episode.started')
    throw new AnalysisError(
      'NOT_AN_EPISODE',
      `not an episode log: it starts with ${first ? first.type : 'nothing'}`,
    );
  const task = taskFromRecord(first.task);
  if (!task)
    throw new AnalysisError(
      'TASK_UNREADABLE',
      `episode ${first.episodeId}: its recorded task ${first.task.id} does not validate with this engiloop (recorded by another version)`,
    );
  let round = 0;
  return {
    episodeId: first.episodeId,
    task,
    rules: first.rules ?? null,
    agent: first.agent,
    events: events.map((event, i) => {
      if ('round' in event && typeof event.round === 'number') round = event.round;
      return { event, seq: seqs?.[i] ?? i + 1, round };
    }),
  };
}

/** The view's events of one type. */
export function ofType<T extends EpisodeEvent['type']>(
  v: EpisodeView,
  type: T,
): Located<Extract<EpisodeEvent, { type: T }>>[] {
  return v.events.filter((l): l is Located<Extract<EpisodeEvent, { type: T }>> => l.event.type === type);
}

/** A finding for `mode`, with the seqs and rounds of `at` (sorted, distinct). */
export function finding(
  mode: ModeId,
  detector: string,
  at: readonly Located[],
  explanation: string,
): Finding {
  return {
    mode,
    owner: MODES[mode].owner,
    seqs: [...new Set(at.map((l) => l.seq))].sort((a, b) => a - b),
    rounds: [...new Set(at.map((l) => l.round))].sort((a, b) => a - b),
    explanation,
    detector,
  };
}

/** A detector: a pure function of the view. */
export interface Detector {
  name: string;
  detect(v: EpisodeView): Finding[];
}
