/**
 * A re-verified verdict trace (actors/analysis `traceEpisode`: the deliverables re-verified at each
 * workspace snapshot) as the report's series: one per criterion, its verdict and measured value per
 * round, where it was last right and first went wrong.
 */
import type { EpisodeEvent } from '../../streams/index.js';
import { rightWrong } from '../analysis/index.js';
import type { EpisodeData, StageData, TraceSeries, VerdictView } from './format.js';

/** The part of a verdict trace the report reads. */
export interface TraceLike {
  criteria: {
    criterion: string;
    series: { round: number; source: string; passed: boolean; score: number; measured: unknown }[];
    lastRight: number | null;
    firstWrong: number | null;
  }[];
}

/** How the report's pages ask for a re-verified trace: null when the episode cannot be traced. */
export type TraceEpisodeFn = (
  events: readonly EpisodeEvent[],
  seqs: readonly number[],
) => Promise<TraceLike | null>;

/** The report's series of a trace. */
export function traceSeries(t: TraceLike): TraceSeries[] {
  return t.criteria.map((c) => ({
    criterion: c.criterion,
    points: c.series.map((p) => ({
      round: p.round,
      passed: p.passed,
      score: p.score,
      measured: typeof p.measured === 'number' && Number.isFinite(p.measured) ? p.measured : null,
      source: p.source,
    })),
    lastRight: c.lastRight,
    firstWrong: c.firstWrong,
  }));
}

/** A criterion's series from the recorded stage checks and final verification. */
export function recordedTrace(
  stages: StageData[],
  final: EpisodeData['verification'],
  lastRound: number,
): TraceSeries[] {
  const by = new Map<string, TraceSeries['points']>();
  const add = (round: number, v: VerdictView, source: string) => {
    const m = typeof v.measured === 'number' ? v.measured : null;
    let points = by.get(v.criterion);
    if (!points) by.set(v.criterion, (points = []));
    points.push({ round, passed: v.passed, score: v.score, measured: m, source });
  };
  for (const s of stages) for (const v of s.verdicts) add(s.round, v, `stage ${s.stage}`);
  for (const v of final?.verdicts ?? []) add(lastRound, v, 'final');
  return [...by.entries()].map(([criterion, points]) => ({ criterion, points, ...rightWrong(points) }));
}
