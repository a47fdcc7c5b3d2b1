/**
 * Run statistics from episode summaries: the EngiScore with a bootstrap 95 % interval, breakdowns
 * by domain, task type, interface and app, pass@k / pass^k with repeats, tasks whose verdict flips,
 * the failure modes by owner, and tokens, cost, steps and durations per agent and task.
 * Infrastructure errors are counted apart and never scored.
 */
import type { EpisodeSummaryRecord } from '../../streams/index.js';
import { bootstrapEngiScore, flips, mean, passAtKByTask, variance, type PassKByTask } from './stats.js';
import type { Owner } from './taxonomy.js';

type Summary = Omit<EpisodeSummaryRecord, 'type' | 'v'>;

/** EngiScore of a slice of the episodes, with its interval (0–100). */
export interface ScoreRow {
  key: string;
  tasks: number;
  episodes: number;
  /** Null when nothing in the slice was scored. */
  engiScore: number | null;
  low: number | null;
  high: number | null;
  /** Share of scored episodes that passed. */
  passRate: number | null;
}

/** Usage of an agent or a task. */
export interface UsageRow {
  key: string;
  episodes: number;
  input: number;
  output: number;
  cached: number;
  /** Null when an episode had model calls without a price. */
  costUsd: number | null;
  steps: number;
  rounds: number;
  durationMs: number;
}

/** A failure mode's count over the run. */
export interface ModeRow {
  mode: string;
  owner: string;
  /** Episodes showing it. */
  episodes: number;
  tasks: number;
}

/** The statistics of one or more runs. */
export interface RunAnalysis {
  runs: string[];
  episodes: number;
  scored: number;
  /** infra_error episodes: counted here, never in a score. */
  infraErrors: number;
  overall: ScoreRow;
  by: { domain: ScoreRow[]; type: ScoreRow[]; interface: ScoreRow[]; app: ScoreRow[] };
  /** With repeats (`--repeat K`). */
  repeats: (PassKByTask & { k: number; flips: string[]; variance: Record<string, number> }) | null;
  modes: ModeRow[];
  /** Episodes with at least one mode of each owner. */
  owners: Record<Owner, number>;
  usage: { byAgent: UsageRow[]; byTask: UsageRow[] };
  /** Forked episodes among them, with where each branched from. */
  forks: { episodeId: string; parent: { episodeId: string; round: number } }[];
}

function scoreRow(key: string, s: readonly Summary[]): ScoreRow {
  const perTask = new Map<string, number[]>();
  const scored = s.filter((x) => x.status !== 'infra_error' && x.score !== null);
  for (const x of scored) perTask.set(x.taskId, [...(perTask.get(x.taskId) ?? []), x.score!]);
  const b = bootstrapEngiScore(perTask);
  return {
    key,
    tasks: new Set(s.map((x) => x.taskId)).size,
    episodes: s.length,
    engiScore: b?.mean ?? null,
    low: b?.low ?? null,
    high: b?.high ?? null,
    passRate: scored.length ? scored.filter((x) => x.passed).length / scored.length : null,
  };
}

function breakdown(s: readonly Summary[], keys: (x: Summary) => string[]): ScoreRow[] {
  const groups = new Map<string, Summary[]>();
  for (const x of s) for (const k of keys(x)) groups.set(k, [...(groups.get(k) ?? []), x]);
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, g]) => scoreRow(k, g));
}

function usage(s: readonly Summary[], key: (x: Summary) => string): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  for (const x of s) {
    const k = key(x);
    const r = rows.get(k) ?? {
      key: k,
      episodes: 0,
      input: 0,
      output: 0,
      cached: 0,
      costUsd: 0,
      steps: 0,
      rounds: 0,
      durationMs: 0,
    };
    r.episodes++;
    r.input += x.usage?.input ?? 0;
    r.output += x.usage?.output ?? 0;
    r.cached += x.usage?.cached ?? 0;
    r.costUsd =
      r.costUsd === null || (x.usage && x.usage.costUsd === null)
        ? null
        : r.costUsd + (x.usage?.costUsd ?? 0);
    r.steps += x.steps;
    r.rounds += x.rounds;
    r.durationMs += x.durationMs;
    rows.set(k, r);
  }
  return [...rows.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** Per-task verdicts of the scored episodes, in episode order. */
export function verdictsByTask(s: readonly Summary[]): Map<string, boolean[]> {
  const m = new Map<string, boolean[]>();
  for (const x of s)
    if (x.status !== 'infra_error' && x.score !== null)
      m.set(x.taskId, [...(m.get(x.taskId) ?? []), x.passed]);
  return m;
}

/**
 * The statistics of `summaries` (one or more runs). `repeat` asks for pass@k and pass^k with
 * k = `repeat`.
 * @throws StatsError `K_TOO_LARGE` when a task has fewer than `repeat` scored episodes.
 */
export function analyzeRuns(
  runs: string[],
  summaries: readonly Summary[],
  o: { repeat?: number } = {},
): RunAnalysis {
  const modes = new Map<string, { owner: string; episodes: number; tasks: Set<string> }>();
  const owners: Record<Owner, number> = { agent: 0, task: 0, harness: 0, infrastructure: 0 };
  for (const x of summaries) {
    const seen = new Set<string>();
    for (const f of x.modes) {
      if (seen.has(f.mode)) continue;
      seen.add(f.mode);
      const m = modes.get(f.mode) ?? { owner: f.owner, episodes: 0, tasks: new Set<string>() };
      m.episodes++;
      m.tasks.add(x.taskId);
      modes.set(f.mode, m);
    }
    for (const owner of new Set(x.modes.map((f) => f.owner))) if (owner in owners) owners[owner as Owner]++;
  }
  let repeats: RunAnalysis['repeats'] = null;
  if (o.repeat !== undefined) {
    const samples = verdictsByTask(summaries);
    const scores = new Map<string, number[]>();
    for (const x of summaries)
      if (x.score !== null) scores.set(x.taskId, [...(scores.get(x.taskId) ?? []), x.score]);
    const v: Record<string, number> = {};
    for (const [t, xs] of scores) v[t] = variance(xs) ?? 0;
    repeats = { k: o.repeat, ...passAtKByTask(samples, o.repeat), flips: flips(samples), variance: v };
  }
  const scored = summaries.filter((x) => x.status !== 'infra_error' && x.score !== null).length;
  return {
    runs,
    episodes: summaries.length,
    scored,
    infraErrors: summaries.filter((x) => x.status === 'infra_error').length,
    overall: scoreRow('all', summaries),
    by: {
      domain: breakdown(summaries, (x) => [x.facets.domain]),
      type: breakdown(summaries, (x) => [x.facets.type]),
      interface: breakdown(summaries, (x) => [x.facets.interface]),
      app: breakdown(summaries, (x) => (x.facets.apps.length ? x.facets.apps : ['(none)'])),
    },
    repeats,
    modes: [...modes.entries()]
      .map(([mode, m]) => ({ mode, owner: m.owner, episodes: m.episodes, tasks: m.tasks.size }))
      .sort((a, b) => b.episodes - a.episodes || a.mode.localeCompare(b.mode)),
    owners,
    usage: { byAgent: usage(summaries, (x) => x.agent), byTask: usage(summaries, (x) => x.taskId) },
    forks: summaries.flatMap((x) => (x.parent ? [{ episodeId: x.episodeId, parent: x.parent }] : [])),
  };
}

/** Mean score per task over its scored episodes. */
export function taskMeans(s: readonly Summary[]): Map<string, number> {
  const out = new Map<string, number>();
  const by = new Map<string, number[]>();
  for (const x of s)
    if (x.status !== 'infra_error' && x.score !== null)
      by.set(x.taskId, [...(by.get(x.taskId) ?? []), x.score]);
  for (const [t, xs] of by) out.set(t, mean(xs)!);
  return out;
}
