/**
 * A reader for CalculiX `.frd` result files (ASCII, short or long format). The format is fixed-width:
 * a node block (`    2C`, lines ` -1 id x y z`), an element block (`    3C`, skipped), and result
 * blocks (`  100CL` header, `-4 NAME ncomps`, `-5` component lines, ` -1 id v1 … v6`, ` -2` for more
 * values), each closed by ` -3`; the file ends with `9999`. Values are 12 characters wide and may
 * touch (`-1.0E+00-2.0E+00`), so lines are cut by column, not split on spaces.
 */
import { ArtifactInvalidError } from '../errors.js';
import { deadline } from '../timeout.js';

/** One result block: a field (DISP, STRESS, FORC, NDTEMP, …) at one step/increment or mode. */
export interface FrdBlock {
  name: string;
  /** Step time, or the frequency of a modal result (the `100CL` value). */
  value: number;
  /** The block counter of `100CL` (increment number, or mode number in a frequency step). */
  step: number;
  /** Analysis label, e.g. `MODAL` (blank for static). */
  analysis: string;
  components: string[];
  ids: number[];
  /** Row-major values: `values[i * components.length + c]`. */
  values: Float64Array;
}

/** A parsed `.frd`: node coordinates and result blocks in file order. */
export interface FrdFile {
  nodes: Map<number, [number, number, number]>;
  blocks: FrdBlock[];
}

/** Parses a `.frd` text. Throws `ArtifactInvalidError` when it is not an ASCII `.frd` or is cut short. */
export function parseFrd(text: string, limitMs: number): FrdFile {
  const clock = deadline(limitMs, '.frd parse');
  const lines = text.split(/\r?\n/);
  if (!/^\s*1C/.test(lines[0] ?? ''))
    throw new ArtifactInvalidError('not a CalculiX .frd: the first line is not the "1C" header');
  const nodes = new Map<number, [number, number, number]>();
  const blocks: FrdBlock[] = [];
  let ended = false;
  let i = 1;
  const num = (s: string, line: number): number => {
    const x = ccxNumber(s);
    if (x === undefined) throw new ArtifactInvalidError(`line ${line + 1}: "${s.trim()}" is not a number`);
    return x;
  };
  while (i < lines.length) {
    if ((i & 4095) === 0) clock.check();
    const line = lines[i]!;
    const head = line.slice(0, 7).trim();
    if (head === '9999') {
      ended = true;
      break;
    }
    if (head === '2C') {
      const idW = fieldFormat(line);
      i++;
      for (; i < lines.length && !lines[i]!.startsWith(' -3'); i++) {
        if ((i & 4095) === 0) clock.check();
        const l = lines[i]!;
        if (!l.startsWith(' -1'))
          throw new ArtifactInvalidError(`line ${i + 1}: expected a node line in the 2C block`);
        const id = num(l.slice(3, 3 + idW), i);
        const at = 3 + idW;
        nodes.set(id, [
          num(l.slice(at, at + 12), i),
          num(l.slice(at + 12, at + 24), i),
          num(l.slice(at + 24, at + 36), i),
        ]);
      }
      if (i >= lines.length) throw new ArtifactInvalidError('truncated: the node block (2C) has no end (-3)');
      i++;
    } else if (head === '3C') {
      for (; i < lines.length && !lines[i]!.startsWith(' -3'); i++) if ((i & 4095) === 0) clock.check();
      if (i >= lines.length)
        throw new ArtifactInvalidError('truncated: the element block (3C) has no end (-3)');
      i++;
    } else if (head.startsWith('100C')) {
      i = readBlock(lines, i, blocks, num, clock);
    } else i++;
  }
  if (!ended)
    throw new ArtifactInvalidError('truncated: no "9999" end marker (the solver did not finish writing)');
  return { nodes, blocks };
}

/**
 * A number as ccx prints it, including the `NaN`/`Inf` a broken-down solve writes (kept, so a
 * verdict can say so); `undefined` for anything else.
 */
export function ccxNumber(s: string): number | undefined {
  const t = s.trim();
  if (/^[+-]?nan$/i.test(t)) return NaN;
  if (/^[+-]?inf(inity)?$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  const x = Number(t);
  return t === '' || !Number.isFinite(x) ? undefined : x;
}

/** Width of the node/element id field: 5 (short format 0) or 10 (long format 1); binary is refused. */
function fieldFormat(header: string): number {
  const f = Number(header.trim().split(/\s+/).at(-1));
  if (f === 2) throw new ArtifactInvalidError('binary .frd (format 2) is not supported: write ASCII results');
  return f === 0 ? 5 : 10;
}

function readBlock(
  lines: string[],
  start: number,
  blocks: FrdBlock[],
  num: (s: string, line: number) => number,
  clock: { check(): void },
): number {
  const h = lines[start]!;
  const value = Number(h.slice(12, 24));
  const step = Number(h.slice(58, 63)) || 0;
  const analysis = h.slice(63, 73).trim();
  const idW = fieldFormat(h);
  let i = start + 1;
  const l4 = lines[i] ?? '';
  if (!l4.startsWith(' -4'))
    throw new ArtifactInvalidError(`line ${i + 1}: expected " -4" after the 100C header`);
  const name = l4.slice(5, 13).trim();
  i++;
  const components: string[] = [];
  for (; i < lines.length && lines[i]!.startsWith(' -5'); i++) {
    const l = lines[i]!;
    // IEXIST = 1 marks a component computed by the viewer (e.g. ALL), not stored in the data lines
    if ((Number(l.slice(33, 38)) || 0) !== 1) components.push(l.slice(5, 13).trim());
  }
  const nc = components.length;
  const ids: number[] = [];
  const vals: number[] = [];
  let row: number[] = [];
  for (; i < lines.length && !lines[i]!.startsWith(' -3'); i++) {
    if ((i & 4095) === 0) clock.check();
    const l = lines[i]!;
    const tag = l.slice(0, 3);
    if (tag !== ' -1' && tag !== ' -2')
      throw new ArtifactInvalidError(
        `line ${i + 1}: unexpected "${l.slice(0, 20)}" inside result block ${name}`,
      );
    if (tag === ' -1') {
      if (row.length > 0)
        throw new ArtifactInvalidError(`line ${i + 1}: ${name} row with ${row.length} of ${nc} values`);
      ids.push(num(l.slice(3, 3 + idW), i));
    }
    for (let at = 3 + idW; at + 12 <= l.length + 0 && row.length < nc; at += 12)
      row.push(num(l.slice(at, at + 12), i));
    if (row.length === nc) {
      vals.push(...row);
      row = [];
    }
  }
  if (i >= lines.length) throw new ArtifactInvalidError(`truncated: result block ${name} has no end (-3)`);
  if (row.length > 0) throw new ArtifactInvalidError(`result block ${name}: last row is incomplete`);
  blocks.push({ name, value, step, analysis, components, ids, values: Float64Array.from(vals) });
  return i + 1;
}

/** The last block named `name` (e.g. `DISP`), or, with `step`, the one whose counter is `step`. */
export function findBlock(frd: FrdFile, name: string, step?: number): FrdBlock | undefined {
  const all = frd.blocks.filter((b) => b.name.toUpperCase() === name.toUpperCase());
  return step === undefined ? all.at(-1) : all.find((b) => b.step === step);
}

/** Von Mises stress from the six components (sxx, syy, szz, sxy, syz, szx). */
export function vonMises(s: ArrayLike<number>, at = 0): number {
  const [xx, yy, zz, xy, yz, zx] = [s[at]!, s[at + 1]!, s[at + 2]!, s[at + 3]!, s[at + 4]!, s[at + 5]!];
  return Math.sqrt(
    0.5 * ((xx - yy) ** 2 + (yy - zz) ** 2 + (zz - xx) ** 2) + 3 * (xy ** 2 + yz ** 2 + zx ** 2),
  );
}
