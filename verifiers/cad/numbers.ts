/** Number formatting and tolerance checks shared by the CAD and drafting verifiers' reasons. */

/** Rounds to 8 significant digits for `measured` fields. */
export const round = (x: number): number => Number(x.toPrecision(8));
/** Six significant digits, for reasons. */
export const fmt = (x: number): string => String(Number(x.toPrecision(6)));
/** A fraction as a percentage, e.g. `0.0123` → `"1.23 %"`. */
export const pct = (x: number): string => `${Number((100 * x).toPrecision(3))} %`;
/** `[1, 2, 3]` → `"[1, 2, 3]"`. */
export const vec = (v: readonly number[]): string => `[${v.map(fmt).join(', ')}]`;

/** A tolerance object with only the parts given, for `tolerance` fields. */
export function tolerance(rel: number | undefined, abs: number | undefined): Record<string, number> {
  return { ...(rel === undefined ? {} : { rel }), ...(abs === undefined ? {} : { abs }) };
}

/** Compares a scalar with a relative and/or absolute tolerance (the larger allowance wins). */
export function withinTolerance(
  measured: number,
  expected: number,
  rel: number | undefined,
  abs: number | undefined,
): { ok: boolean; err: number; allowed: number } {
  const err = Math.abs(measured - expected);
  const allowed = Math.max(abs ?? 0, (rel ?? 0) * Math.abs(expected));
  return { ok: Number.isFinite(measured) && err <= allowed, err, allowed };
}
