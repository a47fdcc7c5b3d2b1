/**
 * Welding: an STL is a triangle soup with each corner repeated; a manifold check needs shared
 * vertices. `exact` merges bit-identical corners; `quantized` merges corners that round to the same
 * point on a grid of 1e-6 × the bounding-box diagonal (for exporters that print few digits).
 */
import type { TriangleSoup } from './stl-parse.js';

/** An indexed triangle mesh (the shape `manifold-3d` takes). */
export interface IndexedMesh {
  vertProperties: Float32Array;
  triVerts: Uint32Array;
  /** Triangles dropped because two of their corners welded together. */
  degenerate: number;
}

/** How corners are merged. */
export type WeldMode = 'exact' | 'quantized';

/** Welds a soup into an indexed mesh. */
export function weld(soup: TriangleSoup, mode: WeldMode): IndexedMesh {
  const p = soup.positions;
  const step = mode === 'quantized' ? gridStep(p) : 0;
  const key =
    step > 0
      ? (i: number): string => `${Math.round(p[i]! / step)},${Math.round(p[i + 1]! / step)},${Math.round(p[i + 2]! / step)}`
      : (i: number): string => `${p[i]},${p[i + 1]},${p[i + 2]}`;
  const index = new Map<string, number>();
  const verts: number[] = [];
  const tris: number[] = [];
  let degenerate = 0;
  for (let t = 0; t < soup.triangles; t++) {
    const ids = [0, 1, 2].map((c) => {
      const i = t * 9 + c * 3;
      const k = key(i);
      let id = index.get(k);
      if (id === undefined) {
        id = verts.length / 3;
        index.set(k, id);
        verts.push(p[i]!, p[i + 1]!, p[i + 2]!);
      }
      return id;
    });
    const [a, b, c] = ids as [number, number, number];
    if (a === b || b === c || a === c) degenerate++;
    else tris.push(a, b, c);
  }
  return { vertProperties: Float32Array.from(verts), triVerts: Uint32Array.from(tris), degenerate };
}

function gridStep(p: Float32Array): number {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i += 3)
    for (let k = 0; k < 3; k++) {
      const v = p[i + k]!;
      if (v < min[k]!) min[k] = v;
      if (v > max[k]!) max[k] = v;
    }
  const diag = Math.hypot(max[0]! - min[0]!, max[1]! - min[1]!, max[2]! - min[2]!);
  return diag > 0 ? diag * 1e-6 : 0;
}
