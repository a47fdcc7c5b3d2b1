import { StatsError } from './stats-errors.js';

/** McNemar's test of two runs' pass/fail verdicts on the same tasks. */
export interface McNemar {
  /** Discordant pairs where run A failed and run B passed (B fixed the task). */
  b01: number;
  /** Discordant pairs where run A passed and run B failed (B broke the task). */
  b10: number;
  /** Exact two-sided p-value of "B fixes as many tasks as it breaks". */
  pValue: number;
  /** Always true: the p-value is the exact binomial one, not the χ² approximation. */
  exact: true;
}

/** One failure mode's episode counts in two runs. */
export interface ModeMixRow {
  /** Failure mode id. */
  mode: string;
  /** Episodes of run A with this mode. */
  a: number;
  /** Episodes of run B with this mode. */
  b: number;
  /** b − a. */
  delta: number;
  /** a / Σ run A's counts (0 when run A has none). */
  shareA: number;
  /** b / Σ run B's counts (0 when run B has none). */
  shareB: number;
  /** shareB − shareA: the change in the mix, fair when the runs differ in size. */
  shareDelta: number;
}

/**
 * Exact McNemar test (McNemar 1947; exact form: Fagerland, Lydersen & Laake 2013, "The McNemar
 * test for binary matched-pairs data", BMC Med Res Methodol 13:91). Each pair is
 * `[passedInA, passedInB]` for one task. Under H₀ a discordant pair is equally likely either way,
 * so with n = b01 + b10 and m = min(b01, b10):
 *   p = min(1, 2 · Σ_{i=0}^{m} C(n, i) / 2ⁿ).
 * The terms are summed in log space (log C(n, i) by the ratio C(n, i) = C(n, i−1)·(n−i+1)/i,
 * then log-sum-exp), so n in the thousands neither overflows nor underflows to a wrong answer.
 * No discordant pairs gives p = 1.
 *
 * @example
 * ```ts
 * mcnemar([[false, true], [true, true]]); // { b01: 1, b10: 0, pValue: 1, exact: true }
 * ```
 */
export function mcnemar(pairs: readonly (readonly [boolean, boolean])[]): McNemar {
  let b01 = 0;
  let b10 = 0;
  for (const [a, b] of pairs) {
    if (!a && b) b01++;
    else if (a && !b) b10++;
  }
  return { b01, b10, pValue: binomialTwoSided(b01 + b10, Math.min(b01, b10)), exact: true };
}

/** min(1, 2 · P(X ≤ m)) for X ~ Binomial(n, ½), with m ≤ n/2. */
function binomialTwoSided(n: number, m: number): number {
  if (n === 0) return 1;
  const logTerms: number[] = [];
  let logC = 0;
  for (let i = 0; i <= m; i++) {
    if (i > 0) logC += Math.log((n - i + 1) / i);
    logTerms.push(logC - n * Math.LN2);
  }
  // C(n, i) grows with i up to n/2, so the last term is the largest.
  const top = logTerms[logTerms.length - 1]!;
  let sum = 0;
  for (const t of logTerms) sum += Math.exp(t - top);
  return Math.min(1, 2 * Math.exp(top + Math.log(sum)));
}

/**
 * The change in the mix of failure modes between two runs: for every mode in either run, its
 * episode counts, their difference and each run's share. Sorted by |delta| (largest change first),
 * ties by mode id, so the table is the same every time.
 *
 * @param a mode → episodes of run A with that mode; `b` the same for run B. A missing mode counts 0.
 * @throws StatsError `INVALID_INPUT` naming a mode whose count is not a non-negative finite number.
 */
export function modeMix(
  a: Readonly<Record<string, number>>,
  b: Readonly<Record<string, number>>,
): ModeMixRow[] {
  const total = (counts: Readonly<Record<string, number>>, run: string) =>
    Object.entries(counts).reduce((sum, [mode, n]) => {
      if (!(Number.isFinite(n) && n >= 0))
        throw new StatsError('INVALID_INPUT', `run ${run}: count of mode ${mode} is ${n}; it must be ≥ 0`);
      return sum + n;
    }, 0);
  const totalA = total(a, 'A');
  const totalB = total(b, 'B');
  const count = (counts: Readonly<Record<string, number>>, mode: string) =>
    Object.hasOwn(counts, mode) ? counts[mode]! : 0;
  const modes = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return modes
    .map((mode) => {
      const ca = count(a, mode);
      const cb = count(b, mode);
      const shareA = totalA === 0 ? 0 : ca / totalA;
      const shareB = totalB === 0 ? 0 : cb / totalB;
      return { mode, a: ca, b: cb, delta: cb - ca, shareA, shareB, shareDelta: shareB - shareA };
    })
    .sort(
      (x, y) => Math.abs(y.delta) - Math.abs(x.delta) || (x.mode < y.mode ? -1 : x.mode > y.mode ? 1 : 0),
    );
}
