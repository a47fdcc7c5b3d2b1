/**
 * Scoring as EngiWorld defines it. Pure functions: verdicts in, numbers out.
 *
 * - Binary task: 1 only when every criterion passes, else 0.
 * - Quantitative task: 0 unless every gate (`check` and `feasibility` criteria) passes; then the
 *   mean of the `quality` scores, each in [0, 1].
 * - EngiScore: 100 × the mean over tasks of each task's mean score (tasks weighted equally, however
 *   many episodes each one has).
 */

/** The fields of a verdict that scoring reads. */
export interface ScoredVerdict {
  role: 'check' | 'feasibility' | 'quality';
  passed: boolean;
  score: number;
}

/** Bounds of a closeness score, as relative errors. */
export interface ClosenessBounds {
  /** Relative error at or below which the score is 1. */
  full: number;
  /** Relative error at or above which the score is 0. */
  zero: number;
}

/** EngiWorld's default closeness bounds: 1 at ≤ 2 % relative error, 0 at ≥ 20 %. */
export const DEFAULT_CLOSENESS: ClosenessBounds = { full: 0.02, zero: 0.2 };

/**
 * Score in [0, 1] for a relative error: 1 at ≤ `full`, falling linearly to 0 at `zero`.
 * A non-finite error scores 0.
 *
 * @example closeness(0.11) // 0.5 with the default bounds
 */
export function closeness(relErr: number, bounds: ClosenessBounds = DEFAULT_CLOSENESS): number {
  const e = Math.abs(relErr);
  if (!Number.isFinite(e)) return 0;
  if (e <= bounds.full) return 1;
  if (e >= bounds.zero) return 0;
  return clamp01((bounds.zero - e) / (bounds.zero - bounds.full));
}

/** Relative error of `measured` against `expected`; absolute error when `expected` is 0. */
export function relativeError(measured: number, expected: number): number {
  return expected === 0 ? Math.abs(measured) : Math.abs(measured - expected) / Math.abs(expected);
}

/** Binary task score: 1 only when every criterion passes (and there is at least one), else 0. */
export function binaryScore(verdicts: readonly ScoredVerdict[]): number {
  return verdicts.length > 0 && verdicts.every((v) => v.passed) ? 1 : 0;
}

/**
 * Quantitative task score: 0 unless every `check` and `feasibility` criterion passes, then the mean
 * of the `quality` scores (clamped to [0, 1]). No quality criterion at all scores 0.
 */
export function quantitativeScore(verdicts: readonly ScoredVerdict[]): number {
  const gates = verdicts.filter((v) => v.role !== 'quality');
  if (!gates.every((v) => v.passed)) return 0;
  const quality = verdicts.filter((v) => v.role === 'quality');
  if (quality.length === 0) return 0;
  return mean(quality.map((v) => clamp01(v.score)));
}

/** A task's score by its scoring rule. */
export function taskScore(scoring: 'binary' | 'quantitative', verdicts: readonly ScoredVerdict[]): number {
  return scoring === 'binary' ? binaryScore(verdicts) : quantitativeScore(verdicts);
}

/**
 * EngiScore in [0, 100]: 100 × the mean over tasks of each task's mean episode score. Tasks with no
 * scores are left out; no tasks at all gives 0.
 *
 * @example engiScore(new Map([['a', [1, 0]], ['b', [1]]])) // 75
 */
export function engiScore(taskScores: ReadonlyMap<string, readonly number[]>): number {
  const perTask = [...taskScores.values()].filter((s) => s.length > 0).map((s) => mean(s.map(clamp01)));
  return perTask.length === 0 ? 0 : 100 * mean(perTask);
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
