/**
 * The statistics of `analyze` / `compare`, against known values, brute-force definitions and exact
 * (BigInt) arithmetic: pass@k / pass^k, bootstrap intervals (reproducible by seed, narrowing with
 * data), the paired bootstrap, exact McNemar up to thousands of pairs, variance, flips, mode mix.
 */
import { describe, expect, it } from 'vitest';
import { hasCode } from '../../core/index.js';
import {
  bootstrapEngiScore,
  bootstrapMean,
  DEFAULT_SEED,
  flips,
  isStatsError,
  mcnemar,
  mean,
  modeMix,
  pairedBootstrap,
  passAtK,
  passAtKByTask,
  passHatK,
  seededRandom,
  StatsError,
  variance,
} from '../../actors/analysis/stats.js';

/** The error `fn` throws (fails the test when it throws none). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

/** Brute force over every k-subset of n repeats (the first c pass): [P(any passes), P(all pass)]. */
function bruteForce(n: number, c: number, k: number): [number, number] {
  let subsets = 0;
  let any = 0;
  let all = 0;
  for (let mask = 0; mask < 1 << n; mask++) {
    let size = 0;
    let passes = 0;
    for (let i = 0; i < n; i++)
      if (mask & (1 << i)) {
        size++;
        if (i < c) passes++;
      }
    if (size !== k) continue;
    subsets++;
    if (passes > 0) any++;
    if (passes === k) all++;
  }
  return [any / subsets, all / subsets];
}

/** Exact min(1, 2·Σ_{i≤m} C(n,i)/2ⁿ) with BigInt, to 1e-18 absolute. */
function exactBinomialP(n: number, m: number): number {
  let c = 1n;
  let sum = 0n;
  for (let i = 0; i <= m; i++) {
    if (i > 0) c = (c * BigInt(n - i + 1)) / BigInt(i);
    sum += c;
  }
  const scale = 10n ** 18n;
  return Math.min(1, Number((2n * sum * scale) / 2n ** BigInt(n)) / 1e18);
}

/** `count` pairs: [a, b] repeated. */
const repeat = <T>(count: number, item: T): T[] => Array.from({ length: count }, () => item);

describe('pass@k and pass^k', () => {
  it('gives the known values', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    for (let k = 1; k <= 5; k++) {
      expect(passAtK(5, 0, k)).toBe(0);
      expect(passAtK(5, 5, k)).toBe(1);
      expect(passHatK(5, 0, k)).toBe(0);
      expect(passHatK(5, 5, k)).toBeCloseTo(1, 12);
    }
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6, 12);
    // 1 − C(7,3)/C(10,3) = 1 − 35/120
    expect(passAtK(10, 3, 3)).toBeCloseTo(85 / 120, 12);
  });

  it('matches the combinatorial definition for every n ≤ 8', () => {
    for (let n = 1; n <= 8; n++)
      for (let c = 0; c <= n; c++)
        for (let k = 1; k <= n; k++) {
          const [any, all] = bruteForce(n, c, k);
          expect(passAtK(n, c, k), `pass@${k} n=${n} c=${c}`).toBeCloseTo(any, 12);
          expect(passHatK(n, c, k), `pass^${k} n=${n} c=${c}`).toBeCloseTo(all, 12);
        }
  });

  it('stays in [0, 1] and exact for many repeats (no factorials)', () => {
    const p = passAtK(1000, 1, 10); // 1 − C(999,10)/C(1000,10) = 10/1000
    expect(p).toBeCloseTo(0.01, 12);
    expect(passHatK(1000, 999, 10)).toBeCloseTo(1 - 0.01, 12);
  });

  it('refuses k > n with a typed error naming the task and the fix', () => {
    const samples = new Map([
      ['beam-1', [true, true, true, true, true]],
      ['pcb-drc', [true, false, true]],
      ['gear-2', [true, false, true, false]],
    ]);
    const err = thrown(() => passAtKByTask(samples, 5));
    expect(err).toBeInstanceOf(StatsError);
    expect(isStatsError(err, 'K_TOO_LARGE')).toBe(true);
    expect(hasCode(err, 'K_TOO_LARGE')).toBe(true);
    expect((err as Error).message).toBe(
      'pass@5 needs at least 5 repeats per task; task pcb-drc has 3 (run with --repeat 5)',
    );
    expect(
      isStatsError(
        thrown(() => passAtK(3, 1, 4)),
        'K_TOO_LARGE',
      ),
    ).toBe(true);
    expect((thrown(() => passAtK(3, 1, 4)) as Error).message).toMatch(/--repeat 4/);
  });

  it('refuses bad counts', () => {
    expect(
      isStatsError(
        thrown(() => passAtK(3, 4, 1)),
        'INVALID_INPUT',
      ),
    ).toBe(true);
    expect(
      isStatsError(
        thrown(() => passAtK(3, 1, 0)),
        'INVALID_INPUT',
      ),
    ).toBe(true);
    expect(
      isStatsError(
        thrown(() => passAtK(3.5, 1, 1)),
        'INVALID_INPUT',
      ),
    ).toBe(true);
    expect(
      isStatsError(
        thrown(() => passAtK(0, 0, 1)),
        'EMPTY',
      ),
    ).toBe(true);
    const err = thrown(() => passAtKByTask(new Map([['t9', []]]), 1));
    expect(isStatsError(err, 'EMPTY') && (err as Error).message).toMatch(/task t9/);
  });

  it('aggregates per task and overall (mean over tasks)', () => {
    const samples = new Map([
      ['a', [true, false, false, false]], // n 4, c 1
      ['b', [true, true, true, true]],
      ['__proto__', [false, false, false, false]],
    ]);
    const r = passAtKByTask(samples, 2);
    expect(r.perTask['a']).toEqual({ n: 4, c: 1, passAtK: passAtK(4, 1, 2), passHatK: 0 });
    expect(r.perTask['a']!.passAtK).toBeCloseTo(0.5, 12); // 1 − C(3,2)/C(4,2)
    expect(Object.keys(r.perTask)).toEqual(['a', 'b', '__proto__']);
    expect(r.perTask['__proto__']).toMatchObject({ n: 4, c: 0, passAtK: 0 });
    expect(r.overall!.passAtK).toBeCloseTo((0.5 + 1 + 0) / 3, 12);
    expect(r.overall!.passHatK).toBeCloseTo((0 + 1 + 0) / 3, 12);
    expect(passAtKByTask(new Map(), 3)).toEqual({ perTask: {}, overall: null });
  });
});

describe('repeats: flips and variance', () => {
  it('lists the tasks whose verdict differs between repeats, in order', () => {
    const samples = new Map([
      ['steady-pass', [true, true, true]],
      ['flaky-2', [false, true, false]],
      ['steady-fail', [false, false]],
      ['flaky-1', [true, false]],
      ['single', [true]],
    ]);
    expect(flips(samples)).toEqual(['flaky-2', 'flaky-1']);
  });

  it('has a mean that is null for no values', () => {
    expect(mean([])).toBeNull();
    expect(mean([0, 0.5, 1, 0.25])).toBeCloseTo(0.4375, 15);
  });

  it('is the n − 1 sample variance, 0 for one value, null for none', () => {
    expect(variance([1, 2, 3, 4])).toBeCloseTo(5 / 3, 12);
    expect(variance([0.7])).toBe(0);
    expect(variance([])).toBeNull();
    // Deviations 4, 7, 13, 16 around 1e9: Σx² − n·x̄² loses this at double precision; Welford keeps it.
    expect(variance([1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16])).toBeCloseTo(30, 6);
    expect(
      isStatsError(
        thrown(() => variance([1, NaN])),
        'INVALID_INPUT',
      ),
    ).toBe(true);
  });
});

describe('seeded generator', () => {
  it('is reproducible, seed-dependent and uniform on [0, 1)', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    expect(draw(DEFAULT_SEED)).toEqual(Array.from({ length: 5 }, seededRandom()));
    const rand = seededRandom(1);
    const xs = Array.from({ length: 20_000 }, rand);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const deciles = Array.from({ length: 10 }, (_, d) => xs.filter((x) => Math.floor(x * 10) === d).length);
    for (const n of deciles) expect(Math.abs(n - 2000)).toBeLessThan(150); // ~3.5 σ
  });
});

describe('bootstrap of the mean', () => {
  const pattern = (n: number) => Array.from({ length: n }, (_, i) => ((i * 7) % 10) / 10);

  it('is null for no values and collapses for one value or equal values', () => {
    expect(bootstrapMean([])).toBeNull();
    expect(bootstrapMean([0.4])).toEqual({ mean: 0.4, low: 0.4, high: 0.4, resamples: 2000 });
    const equal = bootstrapMean([0.1, 0.1, 0.1])!;
    expect([equal.low, equal.high]).toEqual([equal.mean, equal.mean]);
    expect(equal.mean).toBeCloseTo(0.1, 15);
  });

  it('contains the mean and is close to the normal interval for many values', () => {
    const values = pattern(400); // 0, 0.1, … 0.9 equally often: mean 0.45, sd ≈ 0.2876
    const r = bootstrapMean(values)!;
    expect(r.mean).toBeCloseTo(0.45, 12);
    expect(r.low).toBeLessThan(r.mean);
    expect(r.high).toBeGreaterThan(r.mean);
    const half = (1.96 * Math.sqrt(variance(values)!)) / Math.sqrt(values.length);
    expect((r.high - r.low) / 2).toBeGreaterThan(half * 0.9);
    expect((r.high - r.low) / 2).toBeLessThan(half * 1.1);
  });

  it('resamples every value: [0, 1] spans 0 to 1', () => {
    // Resampled means are 0, ½, 1 with chances ¼, ½, ¼: the 2.5 % and 97.5 % quantiles are 0 and 1.
    expect(bootstrapMean([0, 1])).toMatchObject({ mean: 0.5, low: 0, high: 1 });
  });

  it('covers the true mean about 95 % of the time', () => {
    const rand = seededRandom(99);
    let covered = 0;
    for (let trial = 0; trial < 200; trial++) {
      const sample = Array.from({ length: 50 }, () => (rand() < 0.3 ? 1 : 0));
      const r = bootstrapMean(sample, { seed: trial, resamples: 1000 })!;
      if (r.low <= 0.3 && 0.3 <= r.high) covered++;
    }
    expect(covered / 200).toBeGreaterThan(0.88);
    expect(covered / 200).toBeLessThan(0.995);
  });

  it('narrows with more data and with a lower level', () => {
    const width = (r: { low: number; high: number } | null) => r!.high - r!.low;
    const small = width(bootstrapMean(pattern(20)));
    const large = width(bootstrapMean(pattern(200)));
    expect(large).toBeLessThan(small / 2); // ≈ 1/√10
    expect(width(bootstrapMean(pattern(200), { level: 0.5 }))).toBeLessThan(large / 2);
  });

  it('is reproducible with the same seed and differs with another', () => {
    const values = [0, 1, 0.5, 0.25, 1, 0, 0.75, 0.9, 0.1];
    expect(bootstrapMean(values, { seed: 5 })).toEqual(bootstrapMean(values, { seed: 5 }));
    expect(bootstrapMean(values)).toEqual(bootstrapMean(values, { seed: DEFAULT_SEED }));
    const other = bootstrapMean(values, { seed: 6 })!;
    const base = bootstrapMean(values, { seed: 5 })!;
    expect([other.low, other.high]).not.toEqual([base.low, base.high]);
    expect(other.mean).toBe(base.mean);
    expect(bootstrapMean(values, { resamples: 10 })!.resamples).toBe(10);
  });

  it('refuses bad values and options, naming them', () => {
    expect((thrown(() => bootstrapMean([1, Infinity])) as Error).message).toMatch(/values\[1\] is Infinity/);
    expect((thrown(() => bootstrapMean([1], { resamples: 0 })) as Error).message).toMatch(/resamples/);
    expect((thrown(() => bootstrapMean([1], { level: 95 })) as Error).message).toMatch(/level/);
    expect(
      isStatsError(
        thrown(() => bootstrapMean([1], { seed: NaN })),
        'INVALID_INPUT',
      ),
    ).toBe(true);
  });
});

describe('EngiScore: cluster bootstrap over tasks', () => {
  it('weighs every task the same, on the 0–100 scale', () => {
    const perTask = new Map([
      ['many-repeats', repeat(8, 1)],
      ['one-repeat', [0]],
    ]);
    const r = bootstrapEngiScore(perTask)!;
    expect(r.mean).toBe(50);
    expect(r.low).toBeGreaterThanOrEqual(0);
    expect(r.high).toBeLessThanOrEqual(100);
  });

  it('resamples task means: equals 100 × the bootstrap of the per-task means', () => {
    const perTask = new Map([
      ['a', [1, 0, 1]],
      ['b', [0.5]],
      ['c', [0, 0]],
      ['d', [0.9, 0.7]],
    ]);
    const means = [2 / 3, 0.5, 0, 0.8];
    const inner = bootstrapMean(means, { seed: 3 })!;
    const r = bootstrapEngiScore(perTask, { seed: 3 })!;
    expect(r.mean).toBeCloseTo(100 * inner.mean, 10);
    expect(r.low).toBeCloseTo(100 * inner.low, 10);
    expect(r.high).toBeCloseTo(100 * inner.high, 10);
    expect(r.low).toBeLessThanOrEqual(r.mean);
    expect(r.high).toBeGreaterThanOrEqual(r.mean);
  });

  it('is null for no tasks and refuses a task without scores, naming it', () => {
    expect(bootstrapEngiScore(new Map())).toBeNull();
    const err = thrown(() =>
      bootstrapEngiScore(
        new Map([
          ['ok', [1]],
          ['lost-sandbox', []],
        ]),
      ),
    );
    expect(isStatsError(err, 'EMPTY')).toBe(true);
    expect((err as Error).message).toMatch(/task lost-sandbox has no scores/);
  });
});

describe('paired bootstrap', () => {
  it('gives meanDiff 0 and p = 1 for identical runs', () => {
    const a = [0.2, 0.9, 1, 0, 0.4, 0.75];
    expect(pairedBootstrap(a, [...a])).toEqual({ meanDiff: 0, low: 0, high: 0, pValue: 1, resamples: 2000 });
  });

  it('gives p < 0.05 and an interval above 0 for an obviously better run', () => {
    const a = Array.from({ length: 30 }, (_, i) => ((i * 3) % 7) / 10);
    const b = a.map((x, i) => Math.min(1, x + 0.3 + ((i % 3) - 1) / 20));
    const r = pairedBootstrap(a, b)!;
    expect(r.meanDiff).toBeGreaterThan(0.25);
    expect(r.low).toBeGreaterThan(0);
    expect(r.pValue).toBeLessThan(0.05);
    expect(r.pValue).toBeGreaterThan(0); // resolution 1/(resamples + 1), never exactly 0
    const reversed = pairedBootstrap(b, a)!;
    expect(reversed.meanDiff).toBeCloseTo(-r.meanDiff, 12);
    expect(reversed.pValue).toBe(r.pValue);
  });

  it('is near the normal-theory p-value for a 2-σ difference, and large for noise', () => {
    // 100 differences of 0.1 ± 0.5: mean 0.1, standard error ≈ 0.05, z ≈ 2, p ≈ 0.046
    const a = repeat(100, 0.5);
    const b = a.map((x, i) => x + 0.1 + (i % 2 ? 0.5 : -0.5));
    const r = pairedBootstrap(a, b)!;
    expect(r.pValue).toBeGreaterThan(0.025);
    expect(r.pValue).toBeLessThan(0.075);
    const noise = pairedBootstrap(
      a,
      a.map((x, i) => x + (i % 2 ? 0.3 : -0.3)),
    )!;
    expect(noise.pValue).toBeGreaterThan(0.5);
  });

  it('rejects about 5 % of the time when the runs do not differ', () => {
    const rand = seededRandom(123);
    let rejected = 0;
    for (let trial = 0; trial < 200; trial++) {
      const a = Array.from({ length: 40 }, rand);
      const b = a.map((x) => x + (rand() - 0.5) / 2);
      if (pairedBootstrap(a, b, { seed: trial, resamples: 1000 })!.pValue < 0.05) rejected++;
    }
    expect(rejected).toBeLessThanOrEqual(25); // 10 expected; binomial(200, 0.05) exceeds 25 with p < 1e-4
  });

  it('is null for no pairs and refuses runs of different lengths', () => {
    expect(pairedBootstrap([], [])).toBeNull();
    const err = thrown(() => pairedBootstrap([1, 0], [1]));
    expect(isStatsError(err, 'LENGTH_MISMATCH')).toBe(true);
    expect((err as Error).message).toMatch(/run A has 2 scores, run B 1/);
  });
});

describe('exact McNemar', () => {
  const pairs = (b01: number, b10: number, same = 3): [boolean, boolean][] => [
    ...repeat(b01, [false, true] as [boolean, boolean]),
    ...repeat(b10, [true, false] as [boolean, boolean]),
    ...repeat(same, [true, true] as [boolean, boolean]),
    ...repeat(same, [false, false] as [boolean, boolean]),
  ];

  it('gives the hand-computed p for b01 = 1, b10 = 9', () => {
    // n = 10, m = 1: 2 · (C(10,0) + C(10,1)) / 2¹⁰ = 2 · 11 / 1024 = 0.021484375
    const r = mcnemar(pairs(1, 9));
    expect(r).toMatchObject({ b01: 1, b10: 9, exact: true });
    expect(r.pValue).toBeCloseTo(0.021484375, 12);
    expect(mcnemar(pairs(9, 1)).pValue).toBeCloseTo(0.021484375, 12);
  });

  it('gives p = 1 with no discordant pairs or balanced ones', () => {
    expect(mcnemar(pairs(0, 0))).toEqual({ b01: 0, b10: 0, pValue: 1, exact: true });
    expect(mcnemar([])).toMatchObject({ pValue: 1 });
    expect(mcnemar(pairs(4, 4)).pValue).toBe(1);
    expect(mcnemar(pairs(0, 1)).pValue).toBe(1);
  });

  it('matches exact BigInt arithmetic up to thousands of discordant pairs', () => {
    for (const [b01, b10] of [
      [0, 5],
      [2, 18],
      [40, 70],
      [900, 1100],
      [1450, 1550],
      [2480, 2520],
    ] as const) {
      const p = mcnemar(pairs(b01, b10, 0)).pValue;
      const exact = exactBinomialP(b01 + b10, Math.min(b01, b10));
      expect(Math.abs(p - exact) / exact, `b01=${b01} b10=${b10}`).toBeLessThan(1e-9);
    }
    const extreme = mcnemar(pairs(0, 5000, 0)).pValue; // 2⁻⁴⁹⁹⁹: below the smallest double
    expect(extreme).toBeGreaterThanOrEqual(0);
    expect(extreme).toBeLessThan(1e-300);
  });
});

describe('mode mix', () => {
  it('lists every mode of either run, sorted by |delta| then id, with shares', () => {
    const rows = modeMix({ loop: 3, unverified: 5 }, { unverified: 1, 'feedback-ignored': 4 });
    expect(rows.map((r) => [r.mode, r.delta])).toEqual([
      ['feedback-ignored', 4],
      ['unverified', -4],
      ['loop', -3],
    ]);
    expect(rows[1]).toMatchObject({ a: 5, b: 1, shareA: 5 / 8, shareB: 1 / 5 });
    expect(rows[1]!.shareDelta).toBeCloseTo(1 / 5 - 5 / 8, 12);
    expect(rows[2]).toMatchObject({ a: 3, b: 0, shareB: 0 });
  });

  it('handles empty runs and refuses bad counts, naming the mode', () => {
    expect(modeMix({}, {})).toEqual([]);
    expect(modeMix({}, { loop: 2 })).toEqual([
      { mode: 'loop', a: 0, b: 2, delta: 2, shareA: 0, shareB: 1, shareDelta: 1 },
    ]);
    const err = thrown(() => modeMix({ loop: -1 }, {}));
    expect(isStatsError(err, 'INVALID_INPUT')).toBe(true);
    expect((err as Error).message).toMatch(/mode loop is -1/);
  });
});
