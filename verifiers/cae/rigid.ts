/**
 * Rigid-body motion of a solid model, two ways. Before a solve: do the `*BOUNDARY` DOFs of each
 * connected part suppress all six rigid-body motions (three translations, three rotations)? Each
 * constrained DOF is one row `[e_d, y × e_d]` of a 6-column matrix whose rank must be 6. After a
 * solve: is the displacement field a huge rigid-body motion? ccx 2.20 (SPOOLES) solves an
 * unconstrained model without a word — it exits 0 and prints "Job finished" — and the
 * near-zero pivots show only as displacements ~10⁹ times the model's size, ≥ 99.99 % rigid.
 */
import type { Constraint, Deck } from './deck-model.js';
import { boxOf, targetNodes } from './deck-model.js';
import { elementInfo } from './elements.js';
import { fmt, vec } from '../judge-value.js';

type V3 = [number, number, number];

/** A connected part of the mesh: the nodes its elements share. */
export interface Part {
  nodes: number[];
  box: { min: V3; max: V3 };
}

/** Connected parts of the mesh (through element connectivity), largest first. */
export function partsOf(deck: Deck): Part[] {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.get(r)! !== r) r = parent.get(r)!;
    for (let y = x; y !== r;) {
      const next = parent.get(y)!;
      parent.set(y, r);
      y = next;
    }
    return r;
  };
  for (const e of deck.elements.values()) {
    const ns = e.nodes.filter((n) => deck.nodes.has(n));
    for (const n of ns) if (!parent.has(n)) parent.set(n, n);
    for (let k = 1; k < ns.length; k++) {
      const a = find(ns[0]!);
      const b = find(ns[k]!);
      if (a !== b) parent.set(b, a);
    }
  }
  const groups = new Map<number, number[]>();
  for (const n of parent.keys()) {
    const r = find(n);
    let g = groups.get(r);
    if (g === undefined) groups.set(r, (g = []));
    g.push(n);
  }
  return [...groups.values()]
    .sort((a, b) => b.length - a.length)
    .map((nodes) => ({ nodes, box: boxOf(nodes.map((n) => deck.nodes.get(n)!)) }));
}

/** Keywords that couple DOFs or parts in ways the row test does not model. */
const COUPLING = [
  'EQUATION',
  'MPC',
  'RIGIDBODY',
  'TIE',
  'CONTACTPAIR',
  'COUPLING',
  'KINEMATIC',
  'DISTRIBUTING',
  'SPRING',
  'GAP',
  'TRANSFORM',
  'CYCLICSYMMETRYMODEL',
  'PRE-TENSIONSECTION',
  'SUBMODEL',
];

/** Why the row test cannot decide for this deck, or `null` when it can. */
export function rowTestLimit(deck: Deck): string | null {
  const k = COUPLING.find((c) => deck.keywords.has(c));
  if (k !== undefined) return `the deck couples DOFs with *${k}`;
  const other = Object.keys(deck.elementsByType).find(
    (t) => !(t.startsWith('C3D') && elementInfo(t).dim === 3),
  );
  return other === undefined ? null : `the deck has ${other} elements (not only solid C3D*)`;
}

/** What the constraints leave free on one part. */
export interface FreeModes {
  part: Part;
  /** Rank of the constrained DOFs against the six rigid-body motions. */
  rank: number;
  /** Named motions left free (`translation along Y`, `rotation about X through [0, 5, 5]`). */
  free: string[];
  /** Constrained DOFs on this part. */
  dofs: number;
}

const AXES = ['X', 'Y', 'Z'];

/** Parts of `parts` whose `constraints` leave rigid-body motion free. */
export function freeRigidModes(deck: Deck, parts: Part[], constraints: readonly Constraint[]): FreeModes[] {
  const dofsOf = new Map<number, Set<number>>();
  for (const c of constraints) {
    const nodes = targetNodes(deck, c.target) ?? [];
    for (const n of nodes) {
      let s = dofsOf.get(n);
      if (s === undefined) dofsOf.set(n, (s = new Set()));
      for (let d = Math.max(1, c.first); d <= Math.min(3, c.last); d++) s.add(d);
    }
  }
  const out: FreeModes[] = [];
  for (const part of parts) {
    const c = centre(part.box);
    const L = Math.max(diag(part.box), 1e-30);
    const rows: number[][] = [];
    const held: V3[] = [];
    for (const n of part.nodes) {
      const ds = dofsOf.get(n);
      if (ds === undefined || ds.size === 0) continue;
      const x = deck.nodes.get(n)!;
      held.push(x);
      const y = x.map((v, i) => (v - c[i]!) / L) as V3;
      for (const d of ds) rows.push(row(d - 1, y));
    }
    const rank = rankOf(rows);
    if (rank >= 6) continue;
    const pivot = held.length > 0 ? centre(boxOf(held)) : c;
    const free: string[] = [];
    for (let a = 0; a < 3; a++) {
      const t: number[] = [0, 0, 0, 0, 0, 0];
      t[a] = 1;
      if (rows.every((r) => Math.abs(dot(r, t)) < 1e-9)) free.push(`translation along ${AXES[a]}`);
    }
    for (let a = 0; a < 3; a++) {
      const w: V3 = [0, 0, 0];
      w[a] = 1;
      const off = c.map((v, i) => (v - pivot[i]!) / L) as V3;
      const m = [...cross(w, off), ...w];
      if (rows.every((r) => Math.abs(dot(r, m)) < 1e-9))
        free.push(`rotation about ${AXES[a]} through ${vec(pivot)}`);
    }
    out.push({ part, rank, free, dofs: rows.length });
  }
  return out;
}

/** The row of a constrained DOF `d` (0-based) at scaled position `y`: u_d = t_d + ω·(y × e_d). */
function row(d: number, y: V3): number[] {
  const e: V3 = [0, 0, 0];
  e[d] = 1;
  return [...e, ...cross(y, e)];
}

/** Rank by Gram–Schmidt with re-orthogonalisation (rows are 6-vectors). */
function rankOf(rows: readonly number[][]): number {
  const basis: number[][] = [];
  for (const r of rows) {
    let v = r.slice();
    for (let pass = 0; pass < 2; pass++)
      for (const b of basis) {
        const p = dot(v, b);
        v = v.map((x, i) => x - p * b[i]!);
      }
    const n = Math.sqrt(dot(v, v));
    if (n > 1e-7 * Math.sqrt(dot(r, r))) basis.push(v.map((x) => x / n));
    if (basis.length === 6) break;
  }
  return basis.length;
}

/** What a solved displacement field says about rigid-body motion, per part. */
export interface RigidMotion {
  part: Part;
  /** Largest |U| on the part. */
  maxU: number;
  /** The part's bounding-box diagonal. */
  size: number;
  /**
   * ‖U − R‖ / ‖U‖, where R is the rigid-body motion (translation and rotation) fitted to U by least
   * squares: the share of the field that is deformation.
   */
  deformShare: number;
  /** Nodes whose displacement is not a finite number. */
  nonFinite: number;
  singular: boolean;
}

/**
 * Looks for rigid-body motion in displacements `u(id)` (node id → [ux, uy, uz]). A part is singular
 * when a displacement is NaN/∞, when max |U| ≥ 10⁶ × its size, or when max |U| ≥ 10³ × its size
 * and at most 0.1 % of the field is deformation. Measured with ccx 2.20 on the 100 mm test
 * cantilever: clamped, max |U| = 0.0019 × its size with 13 % deformation (bending looks much like a
 * rotation); on a 3-2-1 support 0.0058 × and 3.7 %; with E 10⁶ × too low 1900 × and 13 %; with no
 * support, an x-only support or one fixed node 2·10⁸…1.2·10⁹ × and 1.3…1.7·10⁻⁴ %.
 */
export function rigidMotion(
  deck: Deck,
  parts: Part[],
  u: (id: number) => readonly number[] | undefined,
): RigidMotion[] {
  return parts.map((part) => {
    const size = Math.max(diag(part.box), 1e-30);
    const c = centre(part.box);
    const N = Array.from({ length: 6 }, () => new Array<number>(6).fill(0));
    const rhs = new Array<number>(6).fill(0);
    let maxU = 0;
    let nonFinite = 0;
    const pts: { y: V3; v: readonly number[] }[] = [];
    for (const n of part.nodes) {
      const v = u(n);
      if (v === undefined) continue;
      if (!v.slice(0, 3).every(Number.isFinite)) {
        nonFinite++;
        continue;
      }
      maxU = Math.max(maxU, Math.hypot(v[0]!, v[1]!, v[2]!));
      const y = deck.nodes.get(n)!.map((x, i) => (x - c[i]!) / size) as V3;
      pts.push({ y, v });
      for (let d = 0; d < 3; d++) {
        const r = row(d, y);
        for (let i = 0; i < 6; i++) {
          rhs[i] = rhs[i]! + r[i]! * v[d]!;
          for (let j = 0; j < 6; j++) N[i]![j] = N[i]![j]! + r[i]! * r[j]!;
        }
      }
    }
    const x = solve6(N, rhs);
    let resid2 = 0;
    let total2 = 0;
    for (const { y, v } of pts)
      for (let d = 0; d < 3; d++) {
        const fit = x === null ? 0 : dot(row(d, y), x);
        resid2 += (v[d]! - fit) ** 2;
        total2 += v[d]! * v[d]!;
      }
    const deformShare = total2 > 0 ? Math.min(1, Math.sqrt(resid2 / total2)) : 1;
    const singular = nonFinite > 0 || maxU >= 1e6 * size || (maxU >= 1e3 * size && deformShare <= 1e-3);
    return { part, maxU, size, deformShare, nonFinite, singular };
  });
}

/** One line for a part found singular. */
export function describeMotion(m: RigidMotion, unit = ''): string {
  const u = unit === '' ? '' : ` ${unit}`;
  if (m.nonFinite > 0) return `${m.nonFinite} node(s) have NaN/infinite displacements (the solve broke down)`;
  return `max |U| = ${fmt(m.maxU)}${u} on a part ${fmt(m.size)}${u} across (${m.maxU / m.size >= 1e4 ? (m.maxU / m.size).toExponential(1) : fmt(m.maxU / m.size)} × its size), ${pctSmall(m.deformShare)} of it deformation, the rest rigid-body motion`;
}

const pctSmall = (x: number): string =>
  x >= 0.001 ? `${fmt(100 * x)} %` : `${(100 * x).toExponential(1)} %`;

function solve6(A: number[][], b: number[]): number[] | null {
  const n = 6;
  const M = A.map((r, i) => [...r, b[i]!]);
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(M[i]![k]!) > Math.abs(M[p]![k]!)) p = i;
    if (Math.abs(M[p]![k]!) < 1e-14) return null;
    [M[k], M[p]] = [M[p]!, M[k]!];
    for (let i = k + 1; i < n; i++) {
      const f = M[i]![k]! / M[k]![k]!;
      for (let j = k; j <= n; j++) M[i]![j] = M[i]![j]! - f * M[k]![j]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = M[i]![n]!;
    for (let j = i + 1; j < n; j++) s -= M[i]![j]! * x[j]!;
    x[i] = s / M[i]![i]!;
  }
  return x;
}

const dot = (a: readonly number[], b: readonly number[]): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
const cross = (a: V3, b: V3): V3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const diag = (b: { min: V3; max: V3 }): number =>
  Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]);
const centre = (b: { min: V3; max: V3 }): V3 => b.min.map((v, i) => (v + b.max[i]!) / 2) as V3;
