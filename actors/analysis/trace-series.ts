/**
 * The types of a verdict trace and the pure part of it: from the verdicts at each point (a
 * snapshot, or the final verification) to each criterion's series and the rounds where the
 * artifact was last right and first went wrong.
 */
import type { VerdictData } from '../../streams/index.js';

/** The deliverables re-verified at one point of the episode. */
export interface TracePoint {
  /** Rounds completed at that point (the snapshot's `round`; the last round for `final`). */
  round: number;
  /** Stream sequence of the `workspace.snapshotted` (or `verification.completed`) event. */
  seq: number;
  /** `snapshot`: re-verified now from the snapshot; `final`: the recorded final verification. */
  source: 'snapshot' | 'final';
  verdicts: VerdictData[];
  /**
   * Task score of the criteria alone (weighted stages are not mixed in, so every point is scored
   * the same way; the final point uses `stages.finalScore` when the episode mixed them).
   */
  score: number;
  /** Every criterion passed. */
  passed: boolean;
  /** Deliverable path → why it was not taken out of the snapshot (counted as missing). */
  refused: Record<string, string>;
  /** Set when the point could not be verified (snapshot gone from the store, verifier crash). */
  error?: string;
}

/** One criterion at one point. */
export interface CriterionPoint {
  round: number;
  source: TracePoint['source'];
  passed: boolean;
  score: number;
  measured: unknown;
}

/** Where the artifact was last right and first went wrong (rounds completed; see {@link rightWrong}). */
export interface RightWrong {
  lastRight: number | null;
  firstWrong: number | null;
}

/** One criterion over the episode. */
export interface CriterionTrace extends RightWrong {
  criterion: string;
  series: CriterionPoint[];
}

/** A verdict trace of one episode (JSON-shaped). */
export interface VerdictTrace extends RightWrong {
  episodeId: string;
  taskId: string;
  points: TracePoint[];
  criteria: CriterionTrace[];
  /** Time spent re-verifying, per point (0 for the recorded final point) and in all, in ms. */
  costMs: { perPoint: number[]; total: number };
  /** `--every-round`: the re-executed episode the points were read from (trace-rounds.ts). */
  reexecuted?: Reexecution;
}

/** The re-execution an every-round trace was read from. */
export interface Reexecution {
  episodeId: string;
  /** First round whose observation or action result differed from the original, or null. */
  divergence: { round: number; what: string; diff: string } | null;
  /** Time the re-execution took, in ms. */
  durationMs: number;
}

/**
 * `lastRight`: the round of the last point that passed, null if none did. `firstWrong`: the round of
 * the first failing point after `lastRight` (the artifact broke in the rounds after `lastRight` up
 * to it); when no point passed, the first point's round; null when the last point passed or there
 * are no points.
 * @example rightWrong([{round:1,passed:false},{round:2,passed:true},{round:3,passed:false}]) // {lastRight:2, firstWrong:3}
 */
export function rightWrong(series: readonly { round: number; passed: boolean }[]): RightWrong {
  let last = -1;
  for (let i = series.length - 1; i >= 0; i--)
    if (series[i]!.passed) {
      last = i;
      break;
    }
  const after = series[last + 1];
  return { lastRight: last < 0 ? null : series[last]!.round, firstWrong: after ? after.round : null };
}

/** Each criterion's series over the points (points with an `error` left out), in first-seen order. */
export function criterionSeries(points: readonly TracePoint[]): CriterionTrace[] {
  const by = new Map<string, CriterionPoint[]>();
  for (const p of points) {
    if (p.error !== undefined) continue;
    for (const v of p.verdicts) {
      const s = by.get(v.criterion) ?? [];
      s.push({ round: p.round, source: p.source, passed: v.passed, score: v.score, measured: v.measured });
      by.set(v.criterion, s);
    }
  }
  return [...by].map(([criterion, series]) => ({ criterion, series, ...rightWrong(series) }));
}
