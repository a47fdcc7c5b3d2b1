/**
 * How far a failed verdict's measured value is from its target, read from the verdict's own
 * `measured` / `expected` / `tolerance` (every verifier records them; their shapes differ). Only
 * shapes with one number on each side, or two vectors of numbers of one length (a bounding box:
 * the component furthest off counts), are measured; anything else is "not numeric".
 */
import type { VerdictData } from '../../streams/index.js';

/** The distance of a failed numeric verdict from its target. */
export interface Miss {
  measured: number;
  /** The target: a value, or a range `[min, max]` (either end may be open). */
  expected: number | [number | null, number | null];
  /** How far the measured value is from the target (0 inside a range). */
  off: number;
  /** The absolute tolerance around a value target, or a two-sided range's half-width. */
  tolerance: number | null;
  /**
   * `off` / `tolerance` (for a two-sided range: its half-width, `off` counted from the nearer end),
   * else `off` / |target| (relative).
   */
  ratio: number | null;
  /**
   * Near miss: within twice the tolerance of a value, at most a half-width outside a range, or
   * within 10 % of a target with no tolerance.
   */
  near: boolean;
  /** For a vector verdict (e.g. a bounding box): the 0-based component the miss is about. */
  component?: number;
}

/** Keys under which verifiers put a single measured number in an object. */
const VALUE_KEYS = ['value', 'fraction', 'iou', 'f1', 'score', 'volume', 'mass', 'area', 'length', 'count'];

/** Rounding slack on the near-miss bounds (50.1 against 50 ± 0.05 is exactly twice, not 2.0000000003×). */
const EPS = 1e-9;

function num(x: unknown): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

function valueOf(x: unknown): number | null {
  if (num(x) !== null) return x as number;
  if (x && typeof x === 'object' && !Array.isArray(x)) {
    const o = x as Record<string, unknown>;
    for (const k of VALUE_KEYS) if (num(o[k]) !== null) return o[k] as number;
  }
  return null;
}

function targetOf(x: unknown): Miss['expected'] | null {
  const n = num(x);
  if (n !== null) return n;
  if (!x || typeof x !== 'object' || Array.isArray(x)) return null;
  const o = x as Record<string, unknown>;
  const v = valueOf(o);
  if (v !== null && num(o.min) === null && num(o.max) === null) return v;
  const min = num(o.min) ?? num(o.min_fraction) ?? num(o.min_iou) ?? num(o.min_f1);
  const max = num(o.max);
  return min === null && max === null ? null : [min, max];
}

function toleranceOf(t: unknown, target: number): number | null {
  const n = num(t);
  if (n !== null) return n;
  if (typeof t === 'string') {
    const pct = /^([\d.]+)\s*%$/.exec(t.trim());
    return pct ? (Number(pct[1]) / 100) * Math.abs(target) : null;
  }
  if (!t || typeof t !== 'object') return null;
  const o = t as Record<string, unknown>;
  const abs = num(o.abs) ?? num(o.abs_tol);
  const rel = num(o.rel) ?? num(o.rel_tol);
  if (abs === null && rel === null) return null;
  return Math.max(abs ?? 0, (rel ?? 0) * Math.abs(target));
}

const numbers = (x: unknown): number[] | null =>
  Array.isArray(x) && x.length > 0 && x.every((n) => num(n) !== null) ? (x as number[]) : null;

/**
 * Vectors of one length, compared component by component (sorted first when the tolerance says
 * `any_orientation`, as the STL verifier does): the miss of the component furthest off — in
 * tolerances when there is one, else in absolute terms.
 */
function vectorMiss(measured: number[], expected: number[], tolerance: unknown): Miss | null {
  if (measured.length !== expected.length) return null;
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const anyWay = (tolerance as { any_orientation?: unknown } | null)?.any_orientation === true;
  const [got, want] = anyWay ? [sorted(measured), sorted(expected)] : [measured, expected];
  let worst: Miss | null = null;
  got.forEach((m, i) => {
    const one = missOf({ measured: m, expected: want[i], tolerance });
    if (!one) return;
    const key = (x: Miss) => (x.tolerance ? x.off / x.tolerance : x.off);
    if (!worst || key(one) > key(worst)) worst = { ...one, component: i };
  });
  return worst;
}

/**
 * The miss of a verdict with one measured number and one numeric target, or with two numeric
 * vectors of one length; null otherwise.
 */
export function missOf(v: Pick<VerdictData, 'measured' | 'expected' | 'tolerance'>): Miss | null {
  const [mv, ev] = [numbers(v.measured), numbers(v.expected)];
  if (mv && ev) return vectorMiss(mv, ev, v.tolerance);
  const measured = valueOf(v.measured);
  const expected = targetOf(v.expected);
  if (measured === null || expected === null) return null;
  if (typeof expected === 'number') {
    const off = Math.abs(measured - expected);
    const tolerance = toleranceOf(v.tolerance, expected);
    const ratio = tolerance ? off / tolerance : expected !== 0 ? off / Math.abs(expected) : null;
    const near = ratio !== null && ratio <= (tolerance ? 2 : 0.1) + EPS;
    return { measured, expected, off, tolerance, ratio, near };
  }
  const [min, max] = expected;
  const off =
    min !== null && measured < min ? min - measured : max !== null && measured > max ? measured - max : 0;
  if (min !== null && max !== null) {
    // A two-sided range: its half-width is the tolerance; a near miss is at most that far outside.
    const half = (max - min) / 2;
    const ratio = half > 0 ? off / half : null;
    return {
      measured,
      expected,
      off,
      tolerance: half > 0 ? half : null,
      ratio,
      near: ratio !== null && ratio <= 1 + EPS,
    };
  }
  const edge = (min ?? max)!;
  const ratio = edge !== 0 ? off / Math.abs(edge) : null;
  return { measured, expected, off, tolerance: null, ratio, near: ratio !== null && ratio <= 0.1 + EPS };
}

/** How far the miss is, in words: `2.4× the tolerance, 0.7 past it`, `12 % of the target`. */
export function describeMiss(m: Miss): string {
  const f = (n: number) => String(Number(n.toPrecision(4)));
  if (m.ratio === null) return 'no tolerance to compare with';
  if (m.tolerance === null) return `${f(m.ratio * 100)} % of the target`;
  if (Array.isArray(m.expected)) return `${f(m.ratio)}× the range's half-width outside it`;
  return `${f(m.ratio)}× the tolerance${m.off > m.tolerance ? `, ${f(m.off - m.tolerance)} past it` : ''}`;
}

/** `50 ± 0.5`, `≥ 0.9`, `[10, 20]`. */
export function formatTarget(m: Miss): string {
  const f = (x: number) => String(Number(x.toPrecision(6)));
  if (typeof m.expected === 'number')
    return m.tolerance ? `${f(m.expected)} ± ${f(m.tolerance)}` : f(m.expected);
  const [min, max] = m.expected;
  if (min !== null && max !== null) return `[${f(min)}, ${f(max)}]`;
  return min !== null ? `≥ ${f(min)}` : `≤ ${f(max!)}`;
}
