/**
 * Quantities measured on parsed CalculiX results, for `calculix.result`. Each function returns a
 * value and a phrase saying where it came from, or throws `ArtifactInvalidError` when the result
 * does not hold what is asked (no DISP block, no node in the region, no table for the set, …).
 */
import { ArtifactInvalidError } from '../errors.js';
import { fmt, vec } from '../judge-value.js';
import type { DatFile, DatTable, StaIncrement } from './dat-parse.js';
import { findBlock, vonMises, type FrdBlock, type FrdFile } from './frd-parse.js';

/** A vector component, or the Euclidean magnitude. */
export type Component = 'x' | 'y' | 'z' | 'magnitude';
/** How several nodal values are reduced to one. */
export type Statistic = 'mean' | 'max' | 'min' | 'max_abs';
/** Where to read: the node nearest a point, the nodes inside a box, or a `.dat` set. */
export interface Where {
  at?: [number, number, number] | undefined;
  region?: { min: [number, number, number]; max: [number, number, number] } | undefined;
  set?: string | undefined;
}

/** A measured value and where it came from. */
export interface Measured {
  value: number;
  source: string;
}

const AXIS = { x: 0, y: 1, z: 2 } as const;

function pick(v: readonly number[], c: Component): number {
  return c === 'magnitude' ? Math.hypot(v[0]!, v[1]!, v[2]!) : v[AXIS[c]]!;
}

function reduce(xs: number[], s: Statistic): number {
  if (s === 'mean') return xs.reduce((a, b) => a + b, 0) / xs.length;
  if (s === 'max') return Math.max(...xs);
  if (s === 'min') return Math.min(...xs);
  return xs.reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a), 0);
}

function block(frd: FrdFile, name: string, step?: number): FrdBlock {
  const b = findBlock(frd, name, step);
  if (b === undefined)
    throw new ArtifactInvalidError(
      `no ${name} result block${step === undefined ? '' : ` at step ${step}`} (blocks: ${[...new Set(frd.blocks.map((x) => x.name))].join(', ') || 'none'}; add it to *NODE FILE / *EL FILE)`,
    );
  return b;
}

/** Rows of `b` selected by `where` (all rows when neither `at` nor `region` is given). */
function rows(frd: FrdFile, b: FrdBlock, where: Where): { idx: number[]; source: string } {
  if (where.at !== undefined) {
    const [px, py, pz] = where.at;
    let best = -1;
    let bestD = Infinity;
    b.ids.forEach((id, k) => {
      const c = frd.nodes.get(id);
      if (c === undefined) return;
      const d = (c[0] - px) ** 2 + (c[1] - py) ** 2 + (c[2] - pz) ** 2;
      if (d < bestD) [best, bestD] = [k, d];
    });
    if (best < 0) throw new ArtifactInvalidError('no node coordinates in the .frd');
    const c = frd.nodes.get(b.ids[best]!)!;
    return {
      idx: [best],
      source: `node ${b.ids[best]} at ${vec(c)} (nearest to ${vec(where.at)}, ${fmt(Math.sqrt(bestD))} away)`,
    };
  }
  if (where.region !== undefined) {
    const { min, max } = where.region;
    const idx: number[] = [];
    b.ids.forEach((id, k) => {
      const c = frd.nodes.get(id);
      if (c !== undefined && c.every((v, i) => v >= min[i]! && v <= max[i]!)) idx.push(k);
    });
    if (idx.length === 0) throw new ArtifactInvalidError(`no node inside the region ${vec(min)}–${vec(max)}`);
    return { idx, source: `${idx.length} nodes in ${vec(min)}–${vec(max)}` };
  }
  return { idx: b.ids.map((_, k) => k), source: `all ${b.ids.length} nodes` };
}

function datTables(dat: DatFile, kind: RegExp, set: string | undefined): DatTable {
  const all = dat.tables.filter(
    (t) => kind.test(t.kind) && (set === undefined || t.set.toUpperCase() === set.toUpperCase()),
  );
  const t = all.at(-1);
  if (t === undefined || t.rows.length === 0)
    throw new ArtifactInvalidError(
      `no ${kind.source} table${set === undefined ? '' : ` for set ${set.toUpperCase()}`} in the .dat (tables: ${dat.tables.map((x) => `${x.kind} ${x.set}`).join(', ') || 'none'})`,
    );
  return t;
}

/** Displacement: a component or magnitude, reduced over the selected nodes (or a `.dat` set). */
export function displacement(
  src: FrdFile | DatFile,
  where: Where,
  c: Component,
  s: Statistic,
  step?: number,
): Measured {
  if ('tables' in src) {
    const t = datTables(src, /^displacements/, where.set);
    return {
      value: reduce(
        t.rows.map((r) => pick(r.values, c)),
        s,
      ),
      source: `${s} of ${c} over ${t.rows.length} nodes of set ${t.set} (.dat)`,
    };
  }
  const b = block(src, 'DISP', step);
  const r = rows(src, b, where);
  const xs = r.idx.map((k) => pick(Array.from(b.values.subarray(k * 3, k * 3 + 3)), c));
  return {
    value: reduce(xs, r.idx.length === 1 ? 'mean' : s),
    source: `${r.idx.length === 1 ? '' : `${s} of `}U${c === 'magnitude' ? '' : `_${c}`} at ${r.source}`,
  };
}

/** Largest von Mises stress over the selected nodes (`.frd` STRESS) or integration points (`.dat`). */
export function maxVonMises(src: FrdFile | DatFile, where: Where, step?: number): Measured {
  if ('tables' in src) {
    const t = datTables(src, /^stresses/, where.set);
    // rows: elem, integration point, sxx syy szz sxy sxz syz (id = elem; values[0] = point)
    const vm = t.rows.map((r) => vonMises(r.values, 1));
    return {
      value: Math.max(...vm),
      source: `max over ${t.rows.length} integration points of set ${t.set} (.dat)`,
    };
  }
  const b = block(src, 'STRESS', step);
  if (b.components.length < 6)
    throw new ArtifactInvalidError(`STRESS block has ${b.components.length} components, need 6`);
  const r = rows(src, b, where);
  let best = -Infinity;
  let at = -1;
  for (const k of r.idx) {
    const v = vonMises(b.values, k * b.components.length);
    if (v > best) [best, at] = [v, k];
  }
  const c = src.nodes.get(b.ids[at]!);
  return { value: best, source: `max over ${r.source}, at node ${b.ids[at]}${c ? ` ${vec(c)}` : ''}` };
}

/** Sum of reaction forces over a `.dat` set (or its TOTALS line) or over `.frd` FORC nodes in a region. */
export function reactionSum(
  src: FrdFile | DatFile,
  where: Where,
  step?: number,
): { sum: [number, number, number]; source: string } {
  if ('tables' in src) {
    const total = src.tables
      .filter(
        (t) =>
          /^total force/.test(t.kind) &&
          (where.set === undefined || t.set.toUpperCase() === where.set.toUpperCase()),
      )
      .at(-1);
    if (total !== undefined && total.rows[0] !== undefined) {
      const v = total.rows[0].values;
      return { sum: [v[0]!, v[1]!, v[2]!], source: `total force of set ${total.set} (.dat)` };
    }
    const t = datTables(src, /^forces/, where.set);
    const sum: [number, number, number] = [0, 0, 0];
    for (const r of t.rows) for (let i = 0; i < 3; i++) sum[i] = sum[i]! + r.values[i]!;
    return { sum, source: `sum of forces over ${t.rows.length} nodes of set ${t.set} (.dat)` };
  }
  if (where.region === undefined && where.at === undefined)
    throw new ArtifactInvalidError(
      'summing .frd FORC needs a region around the supports (FORC also holds the applied loads)',
    );
  const b = block(src, 'FORC', step);
  const r = rows(src, b, where);
  const sum: [number, number, number] = [0, 0, 0];
  for (const k of r.idx) for (let i = 0; i < 3; i++) sum[i] = sum[i]! + b.values[k * 3 + i]!;
  return { sum, source: `sum of FORC over ${r.source}` };
}

/** Eigenfrequency of `mode` (1-based) from the `.dat` eigenvalue table or the `.frd` MODAL blocks. */
export function frequency(src: FrdFile | DatFile, mode: number): Measured {
  if ('tables' in src) {
    const f = src.frequencies[mode - 1];
    if (f === undefined)
      throw new ArtifactInvalidError(
        `no eigenfrequency for mode ${mode} in the .dat (${src.frequencies.length} modes; run a *FREQUENCY step)`,
      );
    return { value: f, source: `mode ${mode} of ${src.frequencies.length} (.dat eigenvalue output)` };
  }
  const modal = src.blocks.filter((b) => b.name === 'DISP' && /MODAL/i.test(b.analysis));
  const b = modal[mode - 1];
  if (b === undefined)
    throw new ArtifactInvalidError(
      `no MODAL DISP block for mode ${mode} in the .frd (${modal.length} modes)`,
    );
  return { value: b.value, source: `mode ${mode} of ${modal.length} (.frd MODAL block)` };
}

/** Whether every step's last converged increment reaches the step's end (`stepTime` ≥ `period`). */
export function convergence(
  inc: StaIncrement[],
  period: number,
  minSteps: number,
): { ok: boolean; text: string; steps: number } {
  const steps = [...new Set(inc.map((x) => x.step))];
  if (steps.length === 0)
    return { ok: false, steps: 0, text: 'no converged increment recorded (the solve failed or did not run)' };
  const short = steps
    .map((s) => ({ s, t: Math.max(...inc.filter((x) => x.step === s).map((x) => x.stepTime)) }))
    .filter((x) => x.t < period * (1 - 1e-6));
  const ok = short.length === 0 && steps.length >= minSteps;
  const text = ok
    ? `${steps.length} step(s) completed, ${inc.length} converged increment(s), each step reaching step time ${period}`
    : short.length > 0
      ? `step ${short.map((x) => `${x.s} stopped at step time ${fmt(x.t)}`).join(', ')} of ${period} (not converged)`
      : `${steps.length} step(s) completed, ${minSteps} required`;
  return { ok, text, steps: steps.length };
}
