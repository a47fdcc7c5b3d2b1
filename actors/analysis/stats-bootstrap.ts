import { assertFinite, mean, sortedQuantile } from './stats-describe.js';
import { StatsError } from './stats-errors.js';
import { DEFAULT_SEED, seededRandom } from './stats-random.js';

/** Options of the bootstrap functions; every field has a documented default. */
export interface BootstrapOptions {
  /** Number of bootstrap resamples (integer ≥ 1). Default 2000. */
  resamples?: number;
  /** Seed of the resampling stream ({@link seededRandom}). Default {@link DEFAULT_SEED}. */
  seed?: number;
  /** Confidence level of the interval, in (0, 1). Default 0.95. */
  level?: number;
}

/** A point estimate with its percentile-bootstrap interval. */
export interface BootstrapInterval {
  /** The estimate on the original data (not the mean of the resamples). */
  mean: number;
  /** Lower bound: the (1 − level)/2 quantile of the resampled estimates. */
  low: number;
  /** Upper bound: the (1 + level)/2 quantile of the resampled estimates. */
  high: number;
  /** Number of resamples drawn. */
  resamples: number;
}

/** The paired difference B − A with its bootstrap interval and two-sided p-value. */
export interface PairedBootstrap {
  /** Mean over pairs of bᵢ − aᵢ: positive when run B scores higher. */
  meanDiff: number;
  /** Lower bound of the percentile interval of the mean difference. */
  low: number;
  /** Upper bound of the percentile interval of the mean difference. */
  high: number;
  /** Two-sided bootstrap p-value of "no difference" (see {@link pairedBootstrap}). */
  pValue: number;
  /** Number of resamples drawn. */
  resamples: number;
}

/**
 * Percentile bootstrap confidence interval of the mean (Efron & Tibshirani 1993, "An Introduction
 * to the Bootstrap", ch. 13): draw `resamples` samples of n values with replacement, take each
 * one's mean x̄*, and report the (1 − level)/2 and (1 + level)/2 quantiles of the x̄* (linear
 * interpolation, Hyndman & Fan type 7).
 *
 * @returns `null` for no values; for one value (or all equal) the interval collapses to the value.
 * @throws StatsError `INVALID_INPUT` for a non-finite value or an option outside its domain.
 * @example
 * ```ts
 * bootstrapMean([0.2, 0.9, 1, 0.4]); // { mean: 0.625, low: …, high: …, resamples: 2000 }
 * ```
 */
export function bootstrapMean(
  values: readonly number[],
  opts: BootstrapOptions = {},
): BootstrapInterval | null {
  assertFinite(values, 'values');
  const { resamples, level, rand } = options(opts);
  const m = mean(values);
  if (m === null) return null;
  const means = resampleMeans(values, resamples, rand);
  const [low, high] = interval(means, level);
  return { mean: m, low, high, resamples };
}

/**
 * EngiScore with its 95 % interval, by a cluster bootstrap over tasks (Field & Welsh 2007,
 * "Bootstrapping clustered data"): EngiScore = 100 · (1/T) Σₜ (1/nₜ) Σᵢ sₜᵢ, the mean over the T
 * tasks of each task's mean score over its repeats. The tasks are the units resampled, each carrying
 * its own mean, so repeats of one task never count as independent evidence.
 *
 * @param perTask task id → that task's scores in [0, 1], one per repeat (excluding infrastructure
 *   errors, which never enter the score).
 * @returns `mean`, `low` and `high` on the 0–100 scale; `null` when there are no tasks.
 * @throws StatsError `EMPTY` naming a task with no scores; `INVALID_INPUT` for a non-finite score.
 */
export function bootstrapEngiScore(
  perTask: ReadonlyMap<string, readonly number[]>,
  opts: BootstrapOptions = {},
): BootstrapInterval | null {
  const taskMeans: number[] = [];
  for (const [task, scores] of perTask) {
    assertFinite(scores, `scores of task ${task}`);
    const m = mean(scores);
    if (m === null)
      throw new StatsError(
        'EMPTY',
        `task ${task} has no scores: leave it out of the map, or re-run it (an episode that ended in an infrastructure error has no score)`,
      );
    taskMeans.push(m);
  }
  const r = bootstrapMean(taskMeans, opts);
  return r && { mean: 100 * r.mean, low: 100 * r.low, high: 100 * r.high, resamples: r.resamples };
}

/**
 * Paired bootstrap of the difference between two runs on the same tasks (Efron & Tibshirani 1993,
 * §15–16; Koehn 2004 for system comparison): dᵢ = bᵢ − aᵢ; resample the pairs (i.e. the dᵢ) with
 * replacement and take each resample's mean d̄*. The interval is the percentile interval of the d̄*.
 * The two-sided p-value of "no difference" is
 *   p = min(1, 2 · min(P*(d̄* ≤ 0), P*(d̄* ≥ 0))),
 * with each share estimated as (count + 1) / (resamples + 1) (Davison & Hinkley 1997, §4.2.1) so
 * that a p-value is never reported as exactly 0: its resolution is 1/(resamples + 1).
 * Identical runs give meanDiff 0 and p = 1.
 *
 * @param a per-task scores of run A; `b` the same tasks, in the same order, for run B.
 * @returns `null` when there are no pairs.
 * @throws StatsError `LENGTH_MISMATCH` when `a` and `b` differ in length; `INVALID_INPUT` as above.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  opts: BootstrapOptions = {},
): PairedBootstrap | null {
  if (a.length !== b.length)
    throw new StatsError(
      'LENGTH_MISMATCH',
      `paired comparison needs the same tasks in both runs: run A has ${a.length} scores, run B ${b.length} (keep only the tasks both ran, in the same order)`,
    );
  assertFinite(a, 'a');
  assertFinite(b, 'b');
  const { resamples, level, rand } = options(opts);
  const diffs = b.map((x, i) => x - a[i]!);
  const meanDiff = mean(diffs);
  if (meanDiff === null) return null;
  const means = resampleMeans(diffs, resamples, rand);
  const [low, high] = interval(means, level);
  let atMost = 0;
  let atLeast = 0;
  for (const m of means) {
    if (m <= 0) atMost++;
    if (m >= 0) atLeast++;
  }
  const share = (count: number) => (count + 1) / (resamples + 1);
  const pValue = Math.min(1, 2 * Math.min(share(atMost), share(atLeast)));
  return { meanDiff, low, high, pValue, resamples };
}

/** Validates the options and fills the defaults. */
function options(opts: BootstrapOptions): { resamples: number; level: number; rand: () => number } {
  const { resamples = 2000, level = 0.95, seed = DEFAULT_SEED } = opts;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new StatsError(
      'INVALID_INPUT',
      `resamples must be an integer ≥ 1, got ${resamples} (default 2000)`,
    );
  if (!(level > 0 && level < 1))
    throw new StatsError(
      'INVALID_INPUT',
      `level must be in (0, 1), got ${level}: pass e.g. 0.95 for a 95 % interval`,
    );
  return { resamples, level, rand: seededRandom(seed) };
}

/** Means of `resamples` samples of `values` drawn with replacement, sorted ascending. */
function resampleMeans(values: readonly number[], resamples: number, rand: () => number): Float64Array {
  const n = values.length;
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(rand() * n)]!;
    means[r] = sum / n;
  }
  return means.sort();
}

/** The equal-tailed percentile interval at `level` of sorted resampled estimates. */
function interval(sorted: Float64Array, level: number): [number, number] {
  const alpha = (1 - level) / 2;
  return [sortedQuantile(sorted, alpha), sortedQuantile(sorted, 1 - alpha)];
}
