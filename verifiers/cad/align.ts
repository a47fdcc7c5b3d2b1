/**
 * Rigid alignment of two closed meshes for shape comparison: volume centroids and principal axes
 * (eigenvectors of the second-moment covariance), computed exactly from the triangles by the
 * divergence theorem. Pure functions on indexed meshes.
 */
import type { IndexedMesh } from './weld.js';

export type V3 = [number, number, number];
/** A 3×3 matrix, rows. */
export type M3 = [V3, V3, V3];

/** Volume, centroid and covariance (second central moments / volume) of a closed mesh. */
export interface MassMoments {
  volume: number;
  centroid: V3;
  covariance: M3;
}

/** Exact moments of a closed, consistently oriented triangle mesh. */
export function massMoments(mesh: Pick<IndexedMesh, 'vertProperties' | 'triVerts'>): MassMoments {
  const p = mesh.vertProperties;
  const t = mesh.triVerts;
  let vol = 0;
  const first: V3 = [0, 0, 0];
  const second = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (let i = 0; i < t.length; i += 3) {
    const a: V3 = [p[3 * t[i]!]!, p[3 * t[i]! + 1]!, p[3 * t[i]! + 2]!];
    const b: V3 = [p[3 * t[i + 1]!]!, p[3 * t[i + 1]! + 1]!, p[3 * t[i + 1]! + 2]!];
    const c: V3 = [p[3 * t[i + 2]!]!, p[3 * t[i + 2]! + 1]!, p[3 * t[i + 2]! + 2]!];
    // Signed volume of the tetrahedron (origin, a, b, c).
    const v =
      (a[0] * (b[1] * c[2] - b[2] * c[1]) -
        a[1] * (b[0] * c[2] - b[2] * c[0]) +
        a[2] * (b[0] * c[1] - b[1] * c[0])) /
      6;
    vol += v;
    const s: V3 = [a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]];
    for (let k = 0; k < 3; k++) first[k]! += (v * s[k]!) / 4;
    // ∫ x_j x_k over the tetrahedron = V/20 · (Σ v v^T + s s^T), vertices a, b, c and the origin.
    for (let j = 0; j < 3; j++)
      for (let k = 0; k < 3; k++)
        second[3 * j + k]! += (v / 20) * (a[j]! * a[k]! + b[j]! * b[k]! + c[j]! * c[k]! + s[j]! * s[k]!);
  }
  const centroid: V3 = vol === 0 ? [0, 0, 0] : [first[0] / vol, first[1] / vol, first[2] / vol];
  const cov = [0, 1, 2].map((j) =>
    [0, 1, 2].map((k) => (vol === 0 ? 0 : second[3 * j + k]! / vol - centroid[j]! * centroid[k]!)),
  ) as M3;
  return { volume: vol, centroid, covariance: cov };
}

/**
 * Eigen-decomposition of a symmetric 3×3 matrix (Jacobi). Returns eigenvalues in decreasing order
 * and the eigenvectors as the rows of a proper rotation (determinant +1).
 */
export function principalAxes(m: M3): { values: V3; axes: M3 } {
  const a = m.map((r) => [...r]);
  const v = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = Math.abs(a[0]![1]!) + Math.abs(a[0]![2]!) + Math.abs(a[1]![2]!);
    if (off < 1e-15 * (Math.abs(a[0]![0]!) + Math.abs(a[1]![1]!) + Math.abs(a[2]![2]!) + 1e-300)) break;
    for (const [p, q] of [
      [0, 1],
      [0, 2],
      [1, 2],
    ] as const) {
      if (Math.abs(a[p]![q]!) < 1e-300) continue;
      const theta = (a[q]![q]! - a[p]![p]!) / (2 * a[p]![q]!);
      const tt = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(tt * tt + 1);
      const s = tt * c;
      for (let k = 0; k < 3; k++) {
        const akp = a[k]![p]!;
        const akq = a[k]![q]!;
        a[k]![p] = c * akp - s * akq;
        a[k]![q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[p]![k]!;
        const aqk = a[q]![k]!;
        a[p]![k] = c * apk - s * aqk;
        a[q]![k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = v[k]![p]!;
        const vkq = v[k]![q]!;
        v[k]![p] = c * vkp - s * vkq;
        v[k]![q] = s * vkp + c * vkq;
      }
    }
  }
  const order = [0, 1, 2].sort((i, j) => a[j]![j]! - a[i]![i]!);
  const axes = order.map((i) => [v[0]![i]!, v[1]![i]!, v[2]![i]!]) as M3;
  if (det(axes) < 0) axes[2] = axes[2].map((x) => -x) as V3;
  return { values: order.map((i) => a[i]![i]!) as V3, axes };
}

/** The four proper sign flips of a principal frame (a frame's axes are defined up to sign). */
export const PROPER_FLIPS: readonly V3[] = [
  [1, 1, 1],
  [1, -1, -1],
  [-1, 1, -1],
  [-1, -1, 1],
];

/**
 * Rotation taking frame `from` onto frame `to` with sign flips `flip`: R = toᵀ · diag(flip) · from
 * (frames as rows).
 */
export function frameRotation(from: M3, to: M3, flip: V3): M3 {
  const out: M3 = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += to[k]![i]! * flip[k]! * from[k]![j]!;
      out[i]![j] = s;
    }
  return out;
}

/** Column-major 4×4 of x ↦ R (x − c) + d, the layout manifold-3d's `transform` takes. */
export function affine(r: M3, c: V3, d: V3): number[] {
  const t = [0, 1, 2].map((i) => d[i]! - (r[i]![0]! * c[0] + r[i]![1]! * c[1] + r[i]![2]! * c[2]));
  return [
    r[0][0],
    r[1][0],
    r[2][0],
    0,
    r[0][1],
    r[1][1],
    r[2][1],
    0,
    r[0][2],
    r[1][2],
    r[2][2],
    0,
    t[0]!,
    t[1]!,
    t[2]!,
    1,
  ];
}

function det(m: M3): number {
  return (
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
    m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
    m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
  );
}
