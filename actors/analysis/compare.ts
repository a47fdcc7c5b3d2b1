/**
 * Two runs side by side: the tasks both scored, per-task deltas, which tasks flipped which way, a
 * paired bootstrap of the score difference, McNemar's exact test on the pass/fail verdicts, and the
 * change in the mix of failure modes. A task "passes" in a run when at least half of its scored
 * episodes passed (with one episode per task: when it passed).
 */
import type { EpisodeSummaryRecord } from '../../streams/index.js';
import { taskMeans, verdictsByTask } from './run-analysis.js';
import {
  mcnemar,
  modeMix,
  pairedBootstrap,
  type McNemar,
  type ModeMixRow,
  type PairedBootstrap,
} from './stats.js';

type Summary = Omit<EpisodeSummaryRecord, 'type' | 'v'>;

/** One task in both runs. */
export interface TaskDelta {
  taskId: string;
  a: number;
  b: number;
  delta: number;
  passedA: boolean;
  passedB: boolean;
}

/** The comparison of run B against run A. */
export interface RunComparison {
  a: string;
  b: string;
  tasks: TaskDelta[];
  /** Tasks only one run scored (left out of the paired tests). */
  onlyA: string[];
  onlyB: string[];
  /** B passes, A did not. */
  fixed: string[];
  /** A passed, B does not. */
  broken: string[];
  /** Difference of EngiScores (B − A, 0–100 scale) with its paired-bootstrap interval and p. */
  score: PairedBootstrap | null;
  mcnemar: McNemar;
  modes: ModeMixRow[];
}

function passes(s: readonly Summary[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const [t, vs] of verdictsByTask(s)) out.set(t, vs.filter(Boolean).length * 2 >= vs.length);
  return out;
}

function modeCounts(s: readonly Summary[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of s) for (const m of new Set(x.modes.map((f) => f.mode))) out[m] = (out[m] ?? 0) + 1;
  return out;
}

/** Compares run `b` against run `a`. */
export function compareRuns(
  a: string,
  sa: readonly Summary[],
  b: string,
  sb: readonly Summary[],
): RunComparison {
  const ma = taskMeans(sa);
  const mb = taskMeans(sb);
  const pa = passes(sa);
  const pb = passes(sb);
  const tasks: TaskDelta[] = [...ma.keys()]
    .filter((t) => mb.has(t))
    .sort()
    .map((t) => ({
      taskId: t,
      a: ma.get(t)!,
      b: mb.get(t)!,
      delta: mb.get(t)! - ma.get(t)!,
      passedA: pa.get(t)!,
      passedB: pb.get(t)!,
    }));
  const diff = pairedBootstrap(
    tasks.map((t) => t.a * 100),
    tasks.map((t) => t.b * 100),
  );
  return {
    a,
    b,
    tasks,
    onlyA: [...ma.keys()].filter((t) => !mb.has(t)).sort(),
    onlyB: [...mb.keys()].filter((t) => !ma.has(t)).sort(),
    fixed: tasks.filter((t) => !t.passedA && t.passedB).map((t) => t.taskId),
    broken: tasks.filter((t) => t.passedA && !t.passedB).map((t) => t.taskId),
    score: diff,
    mcnemar: mcnemar(tasks.map((t) => [t.passedA, t.passedB] as const)),
    modes: modeMix(modeCounts(sa), modeCounts(sb)),
  };
}
