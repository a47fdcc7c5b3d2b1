/**
 * Readers for CalculiX's text outputs: the `.dat` tables written by `*NODE PRINT` / `*EL PRINT`
 * (`displacements (vx,vy,vz) for set TIP and time 0.1E+01`, then rows `id v1 v2 v3`), its eigenvalue
 * table (`E I G E N V A L U E   O U T P U T`), and the `.sta` job summary (one line per converged
 * increment: step, increment, attempt, iterations, total time, step time, increment time).
 */
import { ArtifactInvalidError } from '../errors.js';
import { deadline } from '../timeout.js';
import { ccxNumber } from './frd-parse.js';

/** One `.dat` table. `total` tables (`TOTALS=YES`/`ONLY`) have one row with id 0. */
export interface DatTable {
  /** First word(s) of the title, lower case: `displacements`, `forces`, `stresses`, `total force`, … */
  kind: string;
  /** Set name, upper case as ccx prints it. */
  set: string;
  time: number;
  /** 1-based eigenmode when the table follows `E I G E N V A L U E   N U M B E R`. */
  mode?: number;
  rows: { id: number; values: number[] }[];
}

/** A parsed `.dat`. */
export interface DatFile {
  tables: DatTable[];
  /** Eigenfrequencies in cycles per time unit (Hz for s), mode 1 first. */
  frequencies: number[];
}

const TITLE = /^\s*([a-z][a-z .]*?)\s*\(([^)]*)\)\s*for set\s+(\S+)\s+and time\s+(\S+)/i;

/** Parses a `.dat`. Throws `ArtifactInvalidError` when nothing in it looks like CalculiX output. */
export function parseDat(text: string, limitMs: number): DatFile {
  const clock = deadline(limitMs, '.dat parse');
  const lines = text.split(/\r?\n/);
  const tables: DatTable[] = [];
  const frequencies: number[] = [];
  let mode: number | undefined;
  let current: DatTable | null = null;
  let inEigen = false;
  for (let i = 0; i < lines.length; i++) {
    if ((i & 4095) === 0) clock.check();
    const line = lines[i]!;
    const t = TITLE.exec(line);
    if (t !== null) {
      current = {
        kind: t[1]!.toLowerCase(),
        set: t[3]!,
        time: Number(t[4]),
        rows: [],
        ...(mode ? { mode } : {}),
      };
      tables.push(current);
      inEigen = false;
      continue;
    }
    if (/E I G E N V A L U E\s+O U T P U T/.test(line)) {
      inEigen = true;
      current = null;
      continue;
    }
    const m = /E I G E N V A L U E\s+N U M B E R\s+(\d+)/.exec(line);
    if (m !== null) {
      mode = Number(m[1]);
      inEigen = false;
      current = null;
      continue;
    }
    const xs = line.trim().split(/\s+/);
    const parsed = xs.map(ccxNumber);
    const nums = parsed.map((x) => x ?? NaN);
    if (line.trim() === '' || parsed.some((x) => x === undefined)) {
      if (line.trim() !== '' && current !== null && current.rows.length > 0) current = null;
      if (inEigen && /P A R T I C I P/.test(line)) inEigen = false;
      continue;
    }
    if (inEigen && nums.length >= 4) frequencies[nums[0]! - 1] = nums[3]!;
    else if (current !== null) {
      // a totals table has only values; element tables have elem and integration point first
      const isTotal = current.kind.startsWith('total');
      current.rows.push(isTotal ? { id: 0, values: nums } : { id: nums[0]!, values: nums.slice(1) });
    }
  }
  if (tables.length === 0 && frequencies.length === 0)
    throw new ArtifactInvalidError('no CalculiX result tables or eigenvalues found (is this a ccx .dat?)');
  return { tables, frequencies: frequencies.filter((f) => f !== undefined) };
}

/** One converged increment from the `.sta`. */
export interface StaIncrement {
  step: number;
  increment: number;
  totalTime: number;
  stepTime: number;
}

/** Parses a `.sta`. Throws `ArtifactInvalidError` without the `SUMMARY OF JOB INFORMATION` header. */
export function parseSta(text: string): StaIncrement[] {
  if (!/SUMMARY OF JOB INFORMATION/.test(text))
    throw new ArtifactInvalidError('not a CalculiX .sta: no "SUMMARY OF JOB INFORMATION" header');
  const out: StaIncrement[] = [];
  for (const line of text.split(/\r?\n/)) {
    const xs = line.trim().split(/\s+/).map(Number);
    if (xs.length >= 7 && xs.every(Number.isFinite))
      out.push({ step: xs[0]!, increment: xs[1]!, totalTime: xs[4]!, stepTime: xs[5]! });
  }
  return out;
}
