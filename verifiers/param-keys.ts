/**
 * Unknown-param detection. A zod object strips keys it does not know, so a misspelled tolerance
 * (`abs_tl`) would be dropped and the default used. This walks a params schema beside the value and
 * names every key the schema has no place for, with the closest key it does have.
 */
import type { ZodType } from 'zod';

/** A key in a criterion's params that its verifier's schema does not know. */
export interface UnknownParam {
  /** Path of the key inside `params`, e.g. `['range', 'mn']`. */
  path: (string | number)[];
  /** The keys valid at that place. */
  known: string[];
  /** The closest valid key, when one is close enough to be a likely typo. */
  suggestion?: string;
}

type Def = {
  type: string;
  shape?: Record<string, ZodType>;
  catchall?: ZodType;
  innerType?: ZodType;
  in?: ZodType;
  element?: ZodType;
  items?: ZodType[];
  rest?: ZodType | null;
  valueType?: ZodType;
  options?: ZodType[];
  discriminator?: string;
  values?: unknown[];
  getter?: () => ZodType;
};

const defOf = (s: ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every key of `value` that `schema` has no place for, depth first. Keys the schema does know are
 * followed into their own schemas (nested objects, arrays of objects, union branches).
 *
 * @example unknownParams(StlGeometryParams, { property: 'volume', expected: 1, abs_tl: 0.1 })
 * // [{ path: ['abs_tl'], known: ['property', 'expected', 'rel_tol', 'abs_tol', …], suggestion: 'abs_tol' }]
 */
export function unknownParams(schema: ZodType, value: unknown): UnknownParam[] {
  const out: UnknownParam[] = [];
  visitParams(schema, value, {
    unknown: (path, known) => out.push(withSuggestion({ path, known }, String(path.at(-1)))),
  });
  return out;
}

/** What `visitParams` calls: on every key the schema has no place for, and on every (schema, value) pair. */
export interface ParamVisitor {
  unknown?(path: (string | number)[], known: string[]): void;
  node?(schema: ZodType, value: unknown, path: (string | number)[]): void;
}

/**
 * Walks `value` beside `schema`: every schema node that a value reaches is visited (wrappers such
 * as optional and default included), and every object key without a place in the schema reported.
 * Returns how many unknown keys were found below this point (to pick a union's best branch).
 */
export function visitParams(
  schema: ZodType,
  value: unknown,
  v: ParamVisitor,
  at: (string | number)[] = [],
): number {
  v.node?.(schema, value, at);
  const d = defOf(schema);
  switch (d.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return visitParams(d.innerType!, value, v, at);
    case 'pipe':
      return visitParams(d.in!, value, v, at);
    case 'lazy':
      return visitParams(d.getter!(), value, v, at);
    case 'object': {
      if (!isRecord(value)) return 0;
      const shape = d.shape ?? {};
      const open = d.catchall !== undefined && defOf(d.catchall).type !== 'never';
      const known = Object.keys(shape);
      let n = 0;
      for (const [k, x] of Object.entries(value)) {
        if (Object.hasOwn(shape, k)) n += visitParams(shape[k]!, x, v, [...at, k]);
        else if (!open) {
          v.unknown?.([...at, k], known);
          n++;
        }
      }
      return n;
    }
    case 'array':
      return Array.isArray(value) ? sum(value.map((x, i) => visitParams(d.element!, x, v, [...at, i]))) : 0;
    case 'tuple':
      return Array.isArray(value)
        ? sum(
            value.map((x, i) => {
              const s = d.items?.[i] ?? d.rest;
              return s ? visitParams(s, x, v, [...at, i]) : 0;
            }),
          )
        : 0;
    case 'record':
      return isRecord(value)
        ? sum(Object.entries(value).map(([k, x]) => visitParams(d.valueType!, x, v, [...at, k])))
        : 0;
    case 'union':
      return visitUnion(d, value, v, at);
    default:
      return 0;
  }
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * A discriminated union follows the branch its discriminator picks; any other union the branch with
 * the fewest unknown keys (found with a dry run, then visited for real).
 */
function visitUnion(d: Def, value: unknown, v: ParamVisitor, at: (string | number)[]): number {
  const options = d.options ?? [];
  if (d.discriminator !== undefined && isRecord(value)) {
    const tag = value[d.discriminator];
    const branch = options.find((o) => literalValues(o, d.discriminator!).includes(tag));
    if (branch) return visitParams(branch, value, v, at);
  }
  let best: { o: ZodType; n: number } | undefined;
  for (const o of options) {
    const n = visitParams(o, value, {}, at);
    if (best === undefined || n < best.n) best = { o, n };
    if (n === 0) break;
  }
  return best === undefined ? 0 : visitParams(best.o, value, v, at);
}

function literalValues(option: ZodType, key: string): unknown[] {
  let s: ZodType | undefined = option;
  while (s && defOf(s).type === 'pipe') s = defOf(s).in;
  // A branch that is itself a union (`check: shape` split again by `property`): any of its options.
  if (s && defOf(s).type === 'union') return (defOf(s).options ?? []).flatMap((o) => literalValues(o, key));
  const field = s ? defOf(s).shape?.[key] : undefined;
  return field ? (defOf(field).values ?? []) : [];
}

function withSuggestion(u: UnknownParam, key: string): UnknownParam {
  const s = closest(key, u.known);
  return s === undefined ? u : { ...u, suggestion: s };
}

/**
 * The candidate closest to `word` by edit distance (transpositions count once), when it is close
 * enough to be a typo: at most 2 edits, or a third of the word's length for long words.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d <= limit && (best === undefined || d < best.d)) best = { c, d };
  }
  return best?.c;
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = v;
    }
  return rows[a.length]![b.length]!;
}
