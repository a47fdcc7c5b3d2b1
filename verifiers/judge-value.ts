/**
 * Judging one measured number against what a criterion asks of it, the same way in every verifier:
 * inside a `range` (a gate), close to a `target` (a quality score by relative error), or one-sided
 * (`lower_is_better` / `higher_is_better`: full marks at or beyond `full`, zero at or beyond `zero`).
 */
import { z } from 'zod';
import { ClosenessSchema, HigherIsBetterSchema, LowerIsBetterSchema, RangeSchema } from './params.js';
import { closeness, DEFAULT_CLOSENESS, relativeError } from './score.js';
import type { Verdict } from './types.js';

/** The params of a valued criterion; spread them into a verifier's params object. */
export const valueGoalParams = {
  /** Inclusive range the value must fall in (a gate). */
  range: RangeSchema.optional(),
  /** Target value, scored by closeness of the relative error. */
  target: z.number().optional(),
  /** Relative errors of full and zero score for `target`. Default 1 at ≤ 2 %, 0 at ≥ 20 %. */
  closeness: ClosenessSchema.default(DEFAULT_CLOSENESS),
  /** One-sided quality: 1 at or below `full`, 0 at or above `zero`, linear in between. */
  lower_is_better: LowerIsBetterSchema.optional(),
  /** One-sided quality: 1 at or above `full`, 0 at or below `zero`, linear in between. */
  higher_is_better: HigherIsBetterSchema.optional(),
  /** Unit for readable reasons, e.g. `Hz`, `mm`, `MPa`. */
  unit: z.string().default(''),
};

/** What `judgeValue` reads of the params. */
export interface ValueGoal {
  range?: { min?: number | undefined; max?: number | undefined } | undefined;
  target?: number | undefined;
  closeness: { full: number; zero: number };
  lower_is_better?: { full: number; zero: number } | undefined;
  higher_is_better?: { full: number; zero: number } | undefined;
  unit: string;
}

/** How many of range, target, lower_is_better and higher_is_better the params give. */
export function goalsGiven(p: Partial<ValueGoal>): number {
  return [p.range, p.target, p.lower_is_better, p.higher_is_better].filter((x) => x !== undefined).length;
}

/** The message of a valued criterion that gives none or several goals. */
export const ONE_GOAL = 'give exactly one of range, target, lower_is_better and higher_is_better';

/** What the goal asks for, as `expected` in the verdict. */
export function goalExpected(p: Partial<ValueGoal>): unknown {
  return (
    p.target ??
    p.range ??
    (p.lower_is_better ? { lower_is_better: p.lower_is_better } : undefined) ??
    (p.higher_is_better ? { higher_is_better: p.higher_is_better } : undefined)
  );
}

/**
 * The verdict on a measured value.
 *
 * @param label what was measured, e.g. `part.frd: max_displacement`.
 * @param source where the value came from, shown in brackets after it (e.g. `node 12`).
 * @example judgeValue('f3db', 159.2, { target: 159.15, closeness: DEFAULT_CLOSENESS, unit: 'Hz' })
 */
export function judgeValue(label: string, v: number, p: ValueGoal, source?: string): Verdict {
  const u = p.unit === '' ? '' : ` ${p.unit}`;
  const said = `${label} = ${fmt(v)}${u}${source ? ` (${source})` : ''}`;
  if (!Number.isFinite(v))
    return {
      passed: false,
      score: 0,
      measured: String(v),
      expected: goalExpected(p),
      reason: `${said}: not a finite number`,
    };
  if (p.range !== undefined) {
    const { min, max } = p.range;
    const ok = (min === undefined || v >= min) && (max === undefined || v <= max);
    const want = `${min !== undefined && max !== undefined ? 'in ' : ''}${rangeText(p.range)}`;
    const by = ok ? '' : ` by ${fmt(min !== undefined && v < min ? min - v : v - max!)}${u}`;
    return {
      passed: ok,
      score: ok ? 1 : 0,
      measured: round(v),
      expected: p.range,
      tolerance: 'inclusive range',
      reason: `${said}, required ${want}${u} → ${ok ? 'inside' : `outside${by}`} the range`,
    };
  }
  const side = p.lower_is_better ?? p.higher_is_better;
  if (side !== undefined) {
    const lower = p.lower_is_better !== undefined;
    const t = (v - side.zero) / (side.full - side.zero);
    const score = Math.min(1, Math.max(0, t));
    const dir = lower ? '≤' : '≥';
    const far = lower ? '≥' : '≤';
    return {
      passed: score > 0,
      score,
      measured: round(v),
      expected: goalExpected(p),
      tolerance: { full: side.full, zero: side.zero, direction: lower ? 'lower' : 'higher' },
      reason: `${said}: ${lower ? 'lower' : 'higher'} is better → score ${Number(score.toFixed(3))} (1 at ${dir} ${fmt(side.full)}${u}, 0 at ${far} ${fmt(side.zero)}${u})`,
    };
  }
  if (p.target === undefined) throw new Error(`judgeValue(${label}): ${ONE_GOAL}`);
  const target = p.target;
  const err = relativeError(v, target);
  const score = closeness(err, p.closeness);
  return {
    passed: score > 0,
    score,
    measured: round(v),
    expected: target,
    tolerance: { rel_full: p.closeness.full, rel_zero: p.closeness.zero },
    reason: `${said} vs target ${fmt(target)}${u}: ${pct(err)} off → score ${Number(score.toFixed(3))} (1 at ≤ ${pct(p.closeness.full)}, 0 at ≥ ${pct(p.closeness.zero)})`,
  };
}

/** A range as reasons write it: `≤ 5`, `≥ 1`, `[1, 5]`. */
export function rangeText(r: { min?: number | undefined; max?: number | undefined }): string {
  return r.min === undefined ? `≤ ${r.max}` : r.max === undefined ? `≥ ${r.min}` : `[${r.min}, ${r.max}]`;
}

/** 8 significant digits, for `measured`. */
export const round = (x: number): number => Number(x.toPrecision(8));
/** 6 significant digits, for reasons. */
export const fmt = (x: number): string => String(Number(x.toPrecision(6)));
/** A fraction as a percentage with 3 significant digits. */
export const pct = (x: number): string => `${Number((100 * x).toPrecision(3))} %`;
/** A vector for reasons: `[1, 2.5, 3]`. */
export const vec = (v: readonly number[]): string => `[${v.map(fmt).join(', ')}]`;
