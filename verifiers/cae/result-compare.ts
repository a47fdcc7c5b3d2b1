/**
 * Is a delivered result file what ccx writes for the delivered deck? The delivered file is compared,
 * value by value, with the same file from a fresh solve: the mesh (node ids and coordinates), every
 * result block or table in order (name, step, node/element ids, every component) and, for a `.sta`,
 * every converged increment. Values agree when they differ by at most `tol` × the largest magnitude
 * of that kind of result (DISP, STRESS, forces, …) in the fresh solve: a thread count or a rounding
 * in the last printed digit stays far inside it (ccx 2.20 with 1 and 2 threads differs by < 10⁻⁶ of
 * the field's largest value), an edit that moves a verdict does not.
 */
import { fmt } from '../judge-value.js';
import type { DatFile, StaIncrement } from './dat-parse.js';
import type { FrdFile } from './frd-parse.js';
import type { Sources } from './calculix-source.js';

/** The outcome: the same results, or what differs first. */
export type Comparison = { same: true; note: string } | { same: false; why: string };

/** Default relative tolerance of the comparison. */
export const MATCH_TOL = 1e-4;

/** Compares the one kind of result `delivered` holds with the same kind in `fresh`. */
export function compareResults(delivered: Sources, fresh: Sources, tol: number): Comparison {
  if (delivered.frd !== undefined)
    return fresh.frd === undefined ? absent('.frd') : compareFrd(delivered.frd, fresh.frd, tol);
  if (delivered.dat !== undefined)
    return fresh.dat === undefined ? absent('.dat') : compareDat(delivered.dat, fresh.dat, tol);
  if (delivered.sta !== undefined)
    return fresh.sta === undefined ? absent('.sta') : compareSta(delivered.sta, fresh.sta);
  return { same: false, why: 'nothing delivered to compare' };
}

const absent = (ext: string): Comparison => ({
  same: false,
  why: `the re-solve writes no ${ext}, yet one was delivered`,
});

function compareFrd(d: FrdFile, f: FrdFile, tol: number): Comparison {
  if (d.nodes.size !== f.nodes.size)
    return {
      same: false,
      why: `the mesh differs: ${d.nodes.size} nodes delivered vs ${f.nodes.size} re-solved`,
    };
  let span = 0;
  for (const c of f.nodes.values()) span = Math.max(span, ...c.map(Math.abs));
  for (const [id, c] of f.nodes) {
    const e = d.nodes.get(id);
    if (e === undefined)
      return { same: false, why: `the mesh differs: node ${id} is not in the delivered file` };
    if (c.some((v, i) => Math.abs(v - e[i]!) > 1e-5 * span + 1e-12))
      return {
        same: false,
        why: `the mesh differs: node ${id} at [${e.map(fmt).join(', ')}] delivered vs [${c.map(fmt).join(', ')}] re-solved`,
      };
  }
  const names = (x: FrdFile): string => x.blocks.map((b) => `${b.name}@${b.step}`).join(', ');
  if (names(d) !== names(f))
    return {
      same: false,
      why: `result blocks differ: [${short(names(d))}] delivered vs [${short(names(f))}] re-solved`,
    };
  const scale = scales(f.blocks.map((b) => ({ kind: b.name, values: b.values })));
  let checked = 0;
  for (let k = 0; k < f.blocks.length; k++) {
    const a = d.blocks[k]!;
    const b = f.blocks[k]!;
    const label = `${b.name} (block ${k + 1}, step ${b.step})`;
    if (Math.abs(a.value - b.value) > 1e-5 * Math.abs(b.value) + 1e-12)
      return {
        same: false,
        why: `${label}: time/frequency ${fmt(a.value)} delivered vs ${fmt(b.value)} re-solved`,
      };
    if (a.ids.length !== b.ids.length || a.ids.some((id, i) => id !== b.ids[i]))
      return {
        same: false,
        why: `${label}: delivered for ${a.ids.length} nodes vs ${b.ids.length} re-solved`,
      };
    const diff = worst(a.values, b.values, tol * scale(b.name));
    checked += b.values.length;
    if (diff !== null) {
      const nc = b.components.length || 1;
      const id = b.ids[Math.floor(diff.at / nc)];
      const comp = b.components[diff.at % nc] ?? '';
      return {
        same: false,
        why: `${label} ${comp} at node ${id}: ${fmt(a.values[diff.at]!)} delivered vs ${fmt(b.values[diff.at]!)} re-solved (${diff.count} of ${b.values.length} values differ by more than ${fmt(tol * scale(b.name))})`,
      };
    }
  }
  return {
    same: true,
    note: `${f.nodes.size} nodes and ${checked} values in ${f.blocks.length} result block(s) agree`,
  };
}

function compareDat(d: DatFile, f: DatFile, tol: number): Comparison {
  const names = (x: DatFile): string => x.tables.map((t) => `${t.kind} ${t.set}`).join(', ');
  if (names(d) !== names(f))
    return {
      same: false,
      why: `tables differ: [${short(names(d))}] delivered vs [${short(names(f))}] re-solved`,
    };
  if (d.frequencies.length !== f.frequencies.length)
    return {
      same: false,
      why: `${d.frequencies.length} eigenfrequencies delivered vs ${f.frequencies.length} re-solved`,
    };
  for (let k = 0; k < f.frequencies.length; k++) {
    const a = d.frequencies[k]!;
    const b = f.frequencies[k]!;
    if (Math.abs(a - b) > tol * Math.abs(b) + 1e-12)
      return {
        same: false,
        why: `eigenfrequency of mode ${k + 1}: ${fmt(a)} delivered vs ${fmt(b)} re-solved`,
      };
  }
  const kind = (k: string): string => k.replace(/^total\s+/, '');
  const scale = scales(
    f.tables.map((t) => ({ kind: kind(t.kind), values: t.rows.flatMap((r) => r.values) })),
  );
  let checked = 0;
  for (let k = 0; k < f.tables.length; k++) {
    const a = d.tables[k]!;
    const b = f.tables[k]!;
    const label = `${b.kind} of set ${b.set} at time ${fmt(b.time)}`;
    if (Math.abs(a.time - b.time) > 1e-6 * Math.abs(b.time) + 1e-12)
      return { same: false, why: `${label}: time ${fmt(a.time)} delivered` };
    if (a.rows.length !== b.rows.length || a.rows.some((r, i) => r.id !== b.rows[i]!.id))
      return { same: false, why: `${label}: ${a.rows.length} rows delivered vs ${b.rows.length} re-solved` };
    const av = a.rows.flatMap((r) => r.values);
    const bv = b.rows.flatMap((r) => r.values);
    if (av.length !== bv.length) return { same: false, why: `${label}: the rows have other columns` };
    const limit = tol * scale(kind(b.kind));
    const diff = worst(av, bv, limit);
    checked += bv.length;
    if (diff !== null) {
      const nc = Math.max(1, bv.length / b.rows.length);
      const row = b.rows[Math.floor(diff.at / nc)]!;
      return {
        same: false,
        why: `${label}, ${row.id === 0 ? 'total' : `id ${row.id}`}: ${fmt(av[diff.at]!)} delivered vs ${fmt(bv[diff.at]!)} re-solved (${diff.count} of ${bv.length} values differ by more than ${fmt(limit)})`,
      };
    }
  }
  return {
    same: true,
    note: `${checked} values in ${f.tables.length} table(s)${f.frequencies.length ? ` and ${f.frequencies.length} eigenfrequencies` : ''} agree`,
  };
}

function compareSta(d: StaIncrement[], f: StaIncrement[]): Comparison {
  const say = (xs: StaIncrement[]): string => {
    if (xs.length === 0) return 'no converged increment';
    const last = xs.at(-1)!;
    return `${xs.length} increment(s), the last reaching step ${last.step} time ${fmt(last.stepTime)}`;
  };
  const same =
    d.length === f.length &&
    d.every(
      (x, i) =>
        x.step === f[i]!.step &&
        x.increment === f[i]!.increment &&
        Math.abs(x.stepTime - f[i]!.stepTime) <= 1e-6 * Math.abs(f[i]!.stepTime) + 1e-12 &&
        Math.abs(x.totalTime - f[i]!.totalTime) <= 1e-6 * Math.abs(f[i]!.totalTime) + 1e-12,
    );
  return same
    ? { same: true, note: `${say(f)} agree` }
    : { same: false, why: `delivered ${say(d)} vs re-solved ${say(f)}` };
}

/** Per kind, the largest magnitude in the fresh results, floored at 10⁻⁶ of the largest of all. */
function scales(groups: { kind: string; values: ArrayLike<number> }[]): (kind: string) => number {
  const max = new Map<string, number>();
  let all = 0;
  for (const g of groups) {
    let m = max.get(g.kind) ?? 0;
    for (let i = 0; i < g.values.length; i++) {
      const v = Math.abs(g.values[i]!);
      if (Number.isFinite(v)) m = Math.max(m, v);
    }
    max.set(g.kind, m);
    all = Math.max(all, m);
  }
  return (kind) => Math.max(max.get(kind) ?? 0, 1e-6 * all, 1e-30);
}

/** The index of the largest difference beyond `limit`, and how many differ; `null` when none does. */
function worst(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  limit: number,
): { at: number; count: number } | null {
  let at = -1;
  let big = -1;
  let count = 0;
  for (let i = 0; i < b.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const bothNaN = Number.isNaN(x) && Number.isNaN(y);
    const d = x === y || bothNaN ? 0 : Math.abs(x - y);
    if (!(d <= limit)) {
      count++;
      const dd = Number.isFinite(d) ? d : Infinity;
      if (dd > big) [at, big] = [i, dd];
    }
  }
  return count === 0 ? null : { at, count };
}

const short = (s: string): string => (s.length > 160 ? `${s.slice(0, 157)}…` : s);
