import { StatsError } from './stats-errors.js';

/** pass@k and pass^k of one task. */
export interface TaskPassK {
  /** Repeats of the task (episodes with a verdict). */
  n: number;
  /** Repeats that passed. */
  c: number;
  /** Unbiased pass@k: chance that at least one of k repeats drawn without replacement passes. */
  passAtK: number;
  /** Unbiased pass^k: chance that all of k repeats drawn without replacement pass. */
  passHatK: number;
}

/** pass@k and pass^k per task, and their means over tasks. */
export interface PassKByTask {
  /** Task id → its counts and estimates. */
  perTask: Record<string, TaskPassK>;
  /** Unweighted means over tasks; `null` when there are no tasks. */
  overall: { passAtK: number; passHatK: number } | null;
}

/**
 * Unbiased estimator of pass@k from n repeats of which c passed (Chen et al. 2021, "Evaluating
 * Large Language Models Trained on Code", eq. 1):
 *   pass@k = 1 − C(n − c, k) / C(n, k),
 * computed as the product 1 − ∏_{i=n−c+1}^{n} (1 − k/i) (their numerically stable form), never with
 * factorials, so it is exact to rounding for any n.
 *
 * @throws StatsError `K_TOO_LARGE` when k > n; `EMPTY` when n = 0; `INVALID_INPUT` for non-integer
 *   or out-of-range n, c, k.
 * @example
 * ```ts
 * passAtK(10, 3, 1); // 0.3
 * ```
 */
export function passAtK(n: number, c: number, k: number): number {
  check(n, c, k);
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/**
 * Unbiased estimator of pass^k — every one of k repeats passes — from n repeats of which c passed
 * (Yao et al. 2024, "τ-bench", §5): pass^k = C(c, k) / C(n, k), computed as ∏_{i=0}^{k−1} (c − i)/(n − i).
 *
 * @throws as {@link passAtK}.
 * @example
 * ```ts
 * passHatK(4, 2, 2); // 1/6
 * ```
 */
export function passHatK(n: number, c: number, k: number): number {
  check(n, c, k);
  if (c < k) return 0;
  let all = 1;
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i);
  return all;
}

/**
 * pass@k and pass^k of every task from its repeats' verdicts (true = passed), and the mean of each
 * over tasks (every task weighs the same, whatever its number of repeats).
 *
 * @throws StatsError `K_TOO_LARGE` naming the task with the fewest repeats and the `--repeat` that
 *   fixes it; `EMPTY` naming a task with no repeats.
 */
export function passAtKByTask(samples: ReadonlyMap<string, readonly boolean[]>, k: number): PassKByTask {
  let shortest: [string, number] | undefined;
  for (const [task, verdicts] of samples) {
    if (verdicts.length === 0)
      throw new StatsError(
        'EMPTY',
        `task ${task} has no verdicts: leave it out, or re-run it (--repeat ${k})`,
      );
    if (verdicts.length < k && (!shortest || verdicts.length < shortest[1]))
      shortest = [task, verdicts.length];
  }
  if (shortest) throw tooLarge(k, shortest[1], `task ${shortest[0]}`);
  const rows = [...samples].map(([task, verdicts]): [string, TaskPassK] => {
    const n = verdicts.length;
    const c = verdicts.filter(Boolean).length;
    return [task, { n, c, passAtK: passAtK(n, c, k), passHatK: passHatK(n, c, k) }];
  });
  // fromEntries defines own properties, so a task id such as `__proto__` stays an ordinary key.
  const perTask = Object.fromEntries(rows);
  const sumAt = rows.reduce((s, [, r]) => s + r.passAtK, 0);
  const sumHat = rows.reduce((s, [, r]) => s + r.passHatK, 0);
  const tasks = samples.size;
  return { perTask, overall: tasks === 0 ? null : { passAtK: sumAt / tasks, passHatK: sumHat / tasks } };
}

/**
 * Tasks whose verdict flips between repeats: at least one repeat passed and at least one failed.
 * In the map's order.
 */
export function flips(samples: ReadonlyMap<string, readonly boolean[]>): string[] {
  const out: string[] = [];
  for (const [task, verdicts] of samples)
    if (verdicts.includes(true) && verdicts.includes(false)) out.push(task);
  return out;
}

function check(n: number, c: number, k: number): void {
  for (const [name, v] of [
    ['n', n],
    ['c', c],
    ['k', k],
  ] as const)
    if (!Number.isInteger(v) || v < 0)
      throw new StatsError('INVALID_INPUT', `${name} must be a non-negative integer, got ${v}`);
  if (k < 1) throw new StatsError('INVALID_INPUT', `k must be ≥ 1, got ${k}: pass@1 is the plain pass rate`);
  if (c > n)
    throw new StatsError('INVALID_INPUT', `c (passes) must be ≤ n (repeats), got c = ${c}, n = ${n}`);
  if (n === 0) throw new StatsError('EMPTY', `no repeats (n = 0): run the task with --repeat ${k}`);
  if (k > n) throw tooLarge(k, n, 'a task');
}

function tooLarge(k: number, n: number, who: string): StatsError {
  return new StatsError(
    'K_TOO_LARGE',
    `pass@${k} needs at least ${k} repeats per task; ${who} has ${n} (run with --repeat ${k})`,
  );
}
