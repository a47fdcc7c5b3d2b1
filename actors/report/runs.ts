/**
 * The report's run-level data, from episode summaries: each run's statistics (actors/analysis),
 * the comparison when there are two runs, and one row per episode. Pure.
 */
import type { RunRecord } from '../../streams/index.js';
import { analyzeRuns, compareRuns, MODES, type EpisodeSummary, type RunAnalysis } from '../analysis/index.js';
import type { ComparisonData, EpisodeRow, RunData } from './format.js';

/** One run as the report reads it. */
export interface RunInput {
  id: string;
  record: RunRecord | null;
  summaries: EpisodeSummary[];
  /** Episodes not ended yet, as rows (live view). */
  running: EpisodeRow[];
}

/** The k for pass@k: the fewest scored repeats of any task, when every task has at least two. */
function repeatsOf(s: readonly EpisodeSummary[]): number | undefined {
  const n = new Map<string, number>();
  for (const x of s)
    if (x.status !== 'infra_error' && x.score !== null) n.set(x.taskId, (n.get(x.taskId) ?? 0) + 1);
  const k = Math.min(...n.values());
  return n.size && k >= 2 ? k : undefined;
}

function runData(r: RunInput, a: RunAnalysis): RunData {
  return {
    id: r.id,
    startedAt: r.record?.started.startedAt ?? null,
    finishedAt: r.record?.finished?.finishedAt ?? null,
    pending: r.running.length,
    episodes: a.episodes,
    scored: a.scored,
    infraErrors: a.infraErrors,
    overall: a.overall,
    by: a.by,
    repeats: a.repeats && {
      k: a.repeats.k,
      overall: a.repeats.overall ?? { passAtK: 0, passHatK: 0 },
      byTask: Object.entries(a.repeats.perTask).map(([taskId, t]) => ({ taskId, ...t })),
      flips: a.repeats.flips,
      variance: a.repeats.variance,
    },
    modes: a.modes,
    owners: a.owners,
    usage: a.usage,
  };
}

/** One episode's row, from its summary. */
function episodeRow(x: EpisodeSummary): EpisodeRow {
  return {
    id: x.episodeId,
    runId: x.runId,
    taskId: x.taskId,
    agent: x.agent,
    status: x.status,
    score: x.score,
    passed: x.passed,
    rounds: x.rounds,
    steps: x.steps,
    durationMs: x.durationMs,
    facets: x.facets,
    usage: x.usage && {
      input: x.usage.input,
      output: x.usage.output,
      cached: x.usage.cached,
      costUsd: x.usage.costUsd,
      retries: x.usage.retries,
    },
    modes: [...new Set(x.modes.map((f) => f.mode))],
    parent: x.parent ?? null,
  };
}

function comparison(a: RunInput, b: RunInput): ComparisonData {
  const c = compareRuns(a.id, a.summaries, b.id, b.summaries);
  return {
    a: c.a,
    b: c.b,
    tasks: c.tasks,
    onlyA: c.onlyA,
    onlyB: c.onlyB,
    fixed: c.fixed,
    broken: c.broken,
    score: c.score && { delta: c.score.meanDiff, low: c.score.low, high: c.score.high, p: c.score.pValue },
    mcnemar: { b: c.mcnemar.b01, c: c.mcnemar.b10, p: c.mcnemar.pValue },
    modes: c.modes.map((m) => ({ mode: m.mode, a: m.a, b: m.b, delta: m.delta })),
  };
}

/** Run statistics, the comparison of two runs, and every episode's row. */
export function runsData(runs: readonly RunInput[]): {
  runs: RunData[];
  comparison: ComparisonData | null;
  episodes: EpisodeRow[];
  taxonomy: Record<string, { owner: string; title: string }>;
} {
  return {
    runs: runs.map((r) => runData(r, analyzeRuns([r.id], r.summaries, { repeat: repeatsOf(r.summaries) }))),
    comparison: runs.length === 2 ? comparison(runs[0]!, runs[1]!) : null,
    episodes: runs.flatMap((r) => [...r.summaries.map(episodeRow), ...r.running]),
    taxonomy: Object.fromEntries(
      Object.entries(MODES).map(([id, m]) => [id, { owner: m.owner, title: m.title }]),
    ),
  };
}
