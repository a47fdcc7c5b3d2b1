import { StatsError } from './stats-errors.js';

/**
 * Arithmetic mean, Σxᵢ / n. `null` for no values (never NaN).
 */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * Sample variance s² = Σ(xᵢ − x̄)² / (n − 1) (Bessel's correction), computed in one pass with
 * Welford's update (Welford 1962, "Note on a method for calculating corrected sums of squares and
 * products"), which does not lose precision on large, close values as Σx² − n·x̄² does.
 *
 * @returns `null` for no values, `0` for one value.
 * @throws StatsError `INVALID_INPUT` when a value is not finite.
 */
export function variance(values: readonly number[]): number | null {
  assertFinite(values, 'values');
  if (values.length === 0) return null;
  let m = 0;
  let m2 = 0;
  values.forEach((x, i) => {
    const d = x - m;
    m += d / (i + 1);
    m2 += d * (x - m);
  });
  return values.length === 1 ? 0 : m2 / (values.length - 1);
}

/**
 * The `p`-quantile of values already sorted ascending, by linear interpolation between order
 * statistics: h = (n − 1)·p, q = x₍⌊h⌋₎ + (h − ⌊h⌋)·(x₍⌊h⌋+1₎ − x₍⌊h⌋₎) — "type 7" of Hyndman & Fan
 * (1996), the default of R and NumPy. Internal to the bootstrap functions.
 */
export function sortedQuantile(sorted: ArrayLike<number>, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const x = sorted[lo]!;
  const next = sorted[Math.min(lo + 1, sorted.length - 1)]!;
  return x + (h - lo) * (next - x);
}

/** Throws `INVALID_INPUT` naming `field` and the index of the first value that is not finite. */
export function assertFinite(values: readonly number[], field: string): void {
  const i = values.findIndex((v) => !Number.isFinite(v));
  if (i >= 0)
    throw new StatsError(
      'INVALID_INPUT',
      `${field}[${i}] is ${values[i]}: every score must be a finite number (drop or re-verify that episode)`,
    );
}
