/** Small helpers over the `s-expression` parser's tree, shared by the KiCad readers. */
import type { SExpr } from 's-expression';

/** The atom's text, or undefined for a list or nothing. */
export const atom = (x: SExpr | undefined): string | undefined =>
  x === undefined || Array.isArray(x) ? undefined : String(x);
export const isList = (x: SExpr | undefined): x is SExpr[] => Array.isArray(x);
/** The first atom of a list: `(net 1 "GND")` → `net`. */
export const head = (x: SExpr | undefined): string | undefined => (isList(x) ? atom(x[0]) : undefined);
/** The child lists of `x` headed `name`. */
export const children = (x: SExpr[], name: string): SExpr[][] =>
  x.filter((c): c is SExpr[] => head(c) === name);
/** The first child list of `x` headed `name`. */
export const child = (x: SExpr[], name: string): SExpr[] | undefined => children(x, name)[0];
/** A ratio rounded to 3 decimals, for F1, precision and recall. */
export const round3 = (x: number): number => Number(x.toFixed(3));
