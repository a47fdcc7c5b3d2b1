/**
 * A measured scalar of a solid (volume, area) judged against a criterion, the same way in
 * `stl.geometry`, `step.geometry` and `fcstd.document`: a tolerance gate around `expected`
 * (`rel_tol` / `abs_tol`), or one of the shared value goals of `judge-value.ts` (`range`, `target`
 * with `closeness`, `lower_is_better`, `higher_is_better`). `expected` with `closeness` is the
 * older spelling of `target` with `closeness`, kept because tasks use it.
 */
import { z } from 'zod';
import { fmt, goalsGiven, judgeValue, pct, round, valueGoalParams } from '../judge-value.js';
import { ClosenessSchema } from '../params.js';
import { DEFAULT_CLOSENESS } from '../score.js';
import type { Verdict } from '../types.js';

/** The params of a judged scalar; spread them into a property's params object. */
export const scalarGoalParams = {
  /** Expected value; with `rel_tol` / `abs_tol` a tolerance gate, with `closeness` a target. */
  expected: z.number().optional(),
  /** Relative tolerance around `expected`, e.g. 0.001 for ±0.1 %. */
  rel_tol: z.number().nonnegative().optional(),
  /** Absolute tolerance around `expected`, in model units (cubed for volume, squared for area). */
  abs_tol: z.number().nonnegative().optional(),
  ...valueGoalParams,
  /**
   * Relative errors of full and zero score for `target` (or `expected` without a tolerance).
   * Default 1 at ≤ 2 %, 0 at ≥ 20 %. Optional here (not defaulted) so that `expected` with
   * `closeness` can be told from `expected` with neither.
   */
  closeness: ClosenessSchema.optional(),
};

/** What `judgeScalar` reads of the params. */
export interface ScalarGoal {
  expected?: number | undefined;
  rel_tol?: number | undefined;
  abs_tol?: number | undefined;
  range?: { min?: number | undefined; max?: number | undefined } | undefined;
  target?: number | undefined;
  closeness?: { full: number; zero: number } | undefined;
  lower_is_better?: { full: number; zero: number } | undefined;
  higher_is_better?: { full: number; zero: number } | undefined;
  unit: string;
}

/** The problem of a scalar goal that asks for nothing or for two things, or null. */
export function scalarGoalProblem(p: ScalarGoal): string | null {
  const tol = p.rel_tol !== undefined || p.abs_tol !== undefined;
  const goals = goalsGiven(p);
  if (p.expected !== undefined) {
    if (goals > 0)
      return 'give expected (with rel_tol or abs_tol) or one of range, target, lower_is_better and higher_is_better, not both';
    if (!tol && p.closeness === undefined) return 'give rel_tol or abs_tol (or closeness) with expected';
    return null;
  }
  if (tol) return 'rel_tol and abs_tol need expected';
  return goals === 1
    ? null
    : 'give expected with rel_tol or abs_tol, or exactly one of range, target, lower_is_better and higher_is_better';
}

/**
 * The verdict on a measured scalar.
 *
 * @param label what was measured, e.g. `volume`.
 * @param source said in brackets after the value, e.g. `negative: the solid is inside out`.
 * @example judgeScalar('volume', 18183.19, { expected: 18183.186, rel_tol: 0.001, unit: '' })
 */
export function judgeScalar(label: string, m: number, p: ScalarGoal, source?: string): Verdict {
  const u = p.unit === '' ? '' : ` ${p.unit}`;
  const note = source === undefined ? '' : ` (${source})`;
  if (p.expected !== undefined && (p.rel_tol !== undefined || p.abs_tol !== undefined)) {
    const t = withinTolerance(m, p.expected, p.rel_tol, p.abs_tol);
    return {
      passed: t.ok,
      score: t.ok ? 1 : 0,
      measured: round(m),
      expected: p.expected,
      tolerance: tolerance(p.rel_tol, p.abs_tol),
      reason: `${label} ${fmt(m)}${u}${note} vs expected ${fmt(p.expected)}${u}: off by ${fmt(t.err)} (${pct(t.err / Math.abs(p.expected || 1))}), allowed ${fmt(t.allowed)} → ${t.ok ? 'within' : 'outside'} tolerance`,
    };
  }
  const closeness = p.closeness ?? DEFAULT_CLOSENESS;
  const goal =
    p.expected !== undefined
      ? { target: p.expected, closeness, unit: p.unit }
      : {
          range: p.range,
          target: p.target,
          lower_is_better: p.lower_is_better,
          higher_is_better: p.higher_is_better,
          closeness,
          unit: p.unit,
        };
  return judgeValue(label, m, goal, source);
}

/** A tolerance object with only the parts given, for `tolerance` fields. */
function tolerance(rel: number | undefined, abs: number | undefined): Record<string, number> {
  return { ...(rel === undefined ? {} : { rel }), ...(abs === undefined ? {} : { abs }) };
}

/** Compares a scalar with a relative and/or absolute tolerance (the larger allowance wins). */
function withinTolerance(
  measured: number,
  expected: number,
  rel: number | undefined,
  abs: number | undefined,
): { ok: boolean; err: number; allowed: number } {
  const err = Math.abs(measured - expected);
  const allowed = Math.max(abs ?? 0, (rel ?? 0) * Math.abs(expected));
  return { ok: Number.isFinite(measured) && err <= allowed, err, allowed };
}
