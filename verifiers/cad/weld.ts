/**
 * Welding: an STL is a triangle soup with each corner repeated; a manifold check needs shared
 * vertices. `exact` merges bit-identical corners; `quantized` merges corners within 1e-6 × the
 * bounding-box diagonal of each other (for exporters that print few digits), looking in the
 * neighbouring grid cells too so that two close points on either side of a cell boundary still merge.
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

/** Relative weld distance of `quantized` mode, as a fraction of the bounding-box diagonal. */
const WELD_TOLERANCE = 1e-6;

/** Welds a soup into an indexed mesh. */
export function weld(soup: TriangleSoup, mode: WeldMode): IndexedMesh {
  const p = soup.positions;
  const step = mode === 'quantized' ? diagonal(p) * WELD_TOLERANCE : 0;
  const find = step > 0 ? gridIndex(p, step) : exactIndex(p);
  const verts: number[] = [];
  const tris: number[] = [];
  let degenerate = 0;
  for (let t = 0; t < soup.triangles; t++) {
    const a = find(t * 9, verts);
    const b = find(t * 9 + 3, verts);
    const c = find(t * 9 + 6, verts);
    if (a === b || b === c || a === c) degenerate++;
    else tris.push(a, b, c);
  }
  return { vertProperties: Float32Array.from(verts), triVerts: Uint32Array.from(tris), degenerate };
}

type Finder = (i: number, verts: number[]) => number;

function add(p: Float32Array, i: number, verts: number[]): number {
  verts.push(p[i]!, p[i + 1]!, p[i + 2]!);
  return verts.length / 3 - 1;
}

function exactIndex(p: Float32Array): Finder {
  const index = new Map<string, number>();
  return (i, verts) => {
    const k = `${p[i]},${p[i + 1]},${p[i + 2]}`;
    let id = index.get(k);
    if (id === undefined) index.set(k, (id = add(p, i, verts)));
    return id;
  };
}

function gridIndex(p: Float32Array, step: number): Finder {
  const cells = new Map<string, number[]>();
  return (i, verts) => {
    const x = p[i]!;
    const y = p[i + 1]!;
    const z = p[i + 2]!;
    const cx = Math.floor(x / step);
    const cy = Math.floor(y / step);
    const cz = Math.floor(z / step);
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (let dz = -1; dz <= 1; dz++)
          for (const id of cells.get(`${cx + dx},${cy + dy},${cz + dz}`) ?? [])
            if (
              Math.abs(verts[3 * id]! - x) <= step &&
              Math.abs(verts[3 * id + 1]! - y) <= step &&
              Math.abs(verts[3 * id + 2]! - z) <= step
            )
              return id;
    const id = add(p, i, verts);
    const key = `${cx},${cy},${cz}`;
    const cell = cells.get(key);
    if (cell === undefined) cells.set(key, [id]);
    else cell.push(id);
    return id;
  };
}

function diagonal(p: Float32Array): number {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i += 3)
    for (let k = 0; k < 3; k++) {
      const v = p[i + k]!;
      if (v < min[k]!) min[k] = v;
      if (v > max[k]!) max[k] = v;
    }
  return Math.hypot(max[0]! - min[0]!, max[1]! - min[1]!, max[2]! - min[2]!);
}
