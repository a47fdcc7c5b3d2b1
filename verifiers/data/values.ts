/**
 * `data.values`: reopens a JSON or CSV deliverable (a quantity take-off, a manifest, a results
 * table) and compares named values with expected numbers, each within an absolute or relative
 * tolerance or inside a range. Every value is reported; the verdict names each mismatch (and, for a
 * path that is not there, the keys that are).
 */
import path from 'node:path';
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { fmt, judgeValue } from '../judge-value.js';
import { DEFAULT_CLOSENESS } from '../score.js';
import type { Verdict } from '../types.js';
import { lookup, parseCsvTable, type Found } from './lookup.js';

/** One value to check. Give `expected` (with a tolerance), or `min`/`max`, or both. */
const DataValueSpec = z
  .object({
    /**
     * Where the value is. JSON: a JSON pointer (`/storeys/Level 0/doors`) or a dotted path
     * (`storeys.Level 0.doors`, `items.2.mass`). CSV: `<row>.<column>` or `/<row>/<column>`, the row
     * named by its key (the `csv_key` column) or, failing that, by its 0-based index.
     */
    path: z.string().min(1),
    expected: z.number().optional(),
    /** Overrides the criterion's `abs_tol` for this value. */
    abs_tol: z.number().nonnegative().optional(),
    /** Overrides the criterion's `rel_tol` for this value. */
    rel_tol: z.number().nonnegative().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    /** Unit shown in the reason (e.g. `m²`); not converted. */
    unit: z.string().optional(),
  })
  .refine((v) => v.expected !== undefined || v.min !== undefined || v.max !== undefined, {
    message: 'give expected, min or max',
  });
export type DataValueSpec = z.infer<typeof DataValueSpec>;

/** Params of `data.values`. */
export const DataValuesParams = z.object({
  values: z.array(DataValueSpec).min(1),
  /** Absolute tolerance of `expected`, for values that give none. Default 0. */
  abs_tol: z.number().nonnegative().default(0),
  /**
   * Relative tolerance of `expected` (× |expected|), for values that give none. Default 0. A value
   * passes when |measured − expected| ≤ max(abs_tol, rel_tol·|expected|).
   */
  rel_tol: z.number().nonnegative().default(0),
  /** `auto`: CSV for a `.csv`/`.tsv` deliverable, JSON otherwise. */
  format: z.enum(['auto', 'json', 'csv']).default('auto'),
  /** CSV: the column whose value names each row. Default: the first column. */
  csv_key: z.string().optional(),
  /** CSV: the field delimiter. Default `,` (tab for `.tsv`). */
  delimiter: z.string().length(1).optional(),
  /** Larger files fail without being parsed. Default 16 MB. */
  max_mb: z.number().positive().default(16),
});
export type DataValuesParams = z.infer<typeof DataValuesParams>;

/** The outcome for one value. */
interface Check {
  path: string;
  ok: boolean;
  measured: number | null;
  /** The comparison made, or why the value could not be compared. */
  detail: string;
}

/** The `data.values` verifier. */
export const dataValues = defineVerifier({
  name: 'data.values',
  description:
    'Reopens a JSON or CSV deliverable and compares named values (JSON pointer or dotted path) with expected numbers within abs/rel tolerances or ranges',
  params: DataValuesParams,
  judge({ params: p, file }): Verdict {
    const fail = (reason: string): Verdict => ({ passed: false, score: 0, reason: `${file.rel}: ${reason}` });
    if (file.bytes.length > p.max_mb * 1024 * 1024)
      return fail(`${(file.bytes.length / 1048576).toFixed(1)} MB is larger than max_mb ${p.max_mb}`);
    const ext = path.extname(file.rel).toLowerCase();
    const csv = p.format === 'csv' || (p.format === 'auto' && (ext === '.csv' || ext === '.tsv'));
    const text = file.bytes.toString('utf8').replace(/^\uFEFF/, '');
    let doc: unknown;
    if (csv) {
      const table = parseCsvTable(text, p.delimiter ?? (ext === '.tsv' ? '\t' : ','), p.csv_key);
      if ('error' in table) return fail(`not a readable CSV table: ${table.error}`);
      doc = table;
    } else {
      try {
        doc = JSON.parse(text);
      } catch (err) {
        return fail(`not valid JSON: ${(err as Error).message}`);
      }
    }
    const checks = p.values.map((spec) => judgeOne(spec, lookup(doc, spec.path, csv), p));
    const bad = checks.filter((c) => !c.ok);
    const passed = bad.length === 0;
    return {
      passed,
      score: (checks.length - bad.length) / checks.length,
      measured: Object.fromEntries(checks.map((c) => [c.path, c.measured])),
      expected: Object.fromEntries(p.values.map((v) => [v.path, expectation(v, p)])),
      tolerance: { abs_tol: p.abs_tol, rel_tol: p.rel_tol },
      reason:
        `${file.rel} (${csv ? 'CSV' : 'JSON'}): ${checks.length - bad.length}/${checks.length} value(s) match` +
        (passed
          ? `: ${checks.map((c) => c.detail).join('; ')}`
          : `; ${bad.length} mismatch${bad.length === 1 ? '' : 'es'}: ${bad.map((c) => c.detail).join('; ')}`),
    };
  },
});

/** `expected ± tol` or `[min, max]`, for the verdict's `expected`. */
function expectation(v: DataValueSpec, p: DataValuesParams): unknown {
  if (v.expected === undefined) return { min: v.min, max: v.max };
  return {
    value: v.expected,
    tol: allowed(v, p),
    ...(v.min !== undefined || v.max !== undefined ? { min: v.min, max: v.max } : {}),
  };
}

function allowed(v: DataValueSpec, p: DataValuesParams): number {
  return Math.max(v.abs_tol ?? p.abs_tol, (v.rel_tol ?? p.rel_tol) * Math.abs(v.expected ?? 0));
}

/** Factors a value in the wrong unit is off by (10³ mm/m, 10⁶ mm²/m², 10⁹ mm³/m³, 25.4 mm/in, 100 cm/m). */
const UNIT_FACTORS = [1e3, 1e6, 1e9, 25.4, 100];

/** `; ×1000: a unit mix-up?` when `x` is `expected` times a usual unit factor, else ``. */
function unitHint(x: number, expected: number): string {
  if (expected === 0 || x === 0) return '';
  const r = x / expected;
  for (const f of UNIT_FACTORS)
    for (const [k, label] of [
      [f, `×${fmt(f)}`],
      [1 / f, `÷${fmt(f)}`],
    ] as const)
      if (Math.abs(r / k - 1) < 1e-3) return `; ${label}: a unit mix-up?`;
  return '';
}

/**
 * Judges one value with the shared `judgeValue` (an inclusive range: `expected ± tol`, intersected
 * with `min`/`max`), and says it the way a take-off is read: `wall_area = 96 m², expected 93.9 ±
 * 0.01 m² (off by 2.1 m²)`.
 */
function judgeOne(v: DataValueSpec, found: Found, p: DataValuesParams): Check {
  const u = v.unit ? ` ${v.unit}` : '';
  if (!found.ok) return { path: v.path, ok: false, measured: null, detail: `${v.path}: ${found.why}` };
  const x = found.value;
  const tol = v.expected === undefined ? 0 : allowed(v, p);
  const lo = [v.expected === undefined ? undefined : v.expected - tol, v.min].filter((n) => n !== undefined);
  const hi = [v.expected === undefined ? undefined : v.expected + tol, v.max].filter((n) => n !== undefined);
  const range = {
    ...(lo.length > 0 ? { min: Math.max(...lo) } : {}),
    ...(hi.length > 0 ? { max: Math.min(...hi) } : {}),
  };
  const verdict = judgeValue(v.path, x, { range, closeness: DEFAULT_CLOSENESS, unit: v.unit ?? '' });
  const bad: string[] = [];
  let want = '';
  if (v.expected !== undefined) {
    want = `${fmt(v.expected)}${tol > 0 ? ` ± ${fmt(tol)}` : ''}${u}`;
    const off = Math.abs(x - v.expected);
    if (off > tol) bad.push(`expected ${want} (off by ${fmt(off)}${u}${unitHint(x, v.expected)})`);
  }
  if (v.min !== undefined && !(x >= v.min)) bad.push(`below min ${fmt(v.min)}${u}`);
  if (v.max !== undefined && !(x <= v.max)) bad.push(`above max ${fmt(v.max)}${u}`);
  const inRange = v.min !== undefined || v.max !== undefined ? ` in [${v.min ?? '−∞'}, ${v.max ?? '∞'}]` : '';
  return {
    path: v.path,
    ok: verdict.passed,
    measured: x,
    detail: verdict.passed
      ? `${v.path} = ${fmt(x)}${u}${want ? ` (${want})` : ''}${inRange}`
      : `${v.path} = ${fmt(x)}${u}, ${bad.length > 0 ? bad.join(', ') : verdict.reason}`,
  };
}
