/**
 * Mesh facts from `manifold-3d`: whether a welded mesh is a closed 2-manifold, and if so its volume,
 * bounding box, genus and number of connected parts. The wasm module is loaded once per process.
 */
import Module from 'manifold-3d';
import type { IndexedMesh } from './weld.js';

type ManifoldModule = Awaited<ReturnType<typeof Module>>;

let loading: Promise<ManifoldModule> | undefined;

/** The `manifold-3d` wasm module, initialised on first use and cached. */
export function loadManifold(): Promise<ManifoldModule> {
  loading ??= Module().then((wasm) => {
    wasm.setup();
    return wasm;
  });
  // A failed load is not cached, so the next call tries again.
  loading.catch(() => (loading = undefined));
  return loading;
}

/** Facts about a mesh; `manifold: false` carries manifold-3d's status instead. */
export type MeshFacts =
  | {
      manifold: true;
      volume: number;
      surfaceArea: number;
      /** Bounding box size [x, y, z]. */
      size: [number, number, number];
      min: [number, number, number];
      genus: number;
      components: number;
      triangles: number;
      vertices: number;
      /** Whether the shells make one consistent solid (see `Solidity`). */
      solidity: Solidity;
    }
  | { manifold: false; status: string; triangles: number; vertices: number };

/** Builds a Manifold from an indexed mesh and measures it. Frees the wasm objects it made. */
export async function meshFacts(mesh: IndexedMesh): Promise<MeshFacts> {
  const wasm = await loadManifold();
  const triangles = mesh.triVerts.length / 3;
  const vertices = mesh.vertProperties.length / 3;
  let m: InstanceType<ManifoldModule['Manifold']>;
  try {
    m = new wasm.Manifold(
      new wasm.Mesh({ numProp: 3, vertProperties: mesh.vertProperties, triVerts: mesh.triVerts }),
    );
  } catch (err) {
    const status = (err as { code?: unknown }).code;
    return {
      manifold: false,
      status: typeof status === 'string' ? status : String(err),
      triangles,
      vertices,
    };
  }
  try {
    const status = m.status();
    if (status !== 'NoError') return { manifold: false, status, triangles, vertices };
    const box = m.boundingBox();
    const parts = m.decompose();
    const components = parts.length;
    let solidity: Solidity;
    try {
      solidity = solidityOf(wasm, parts);
    } finally {
      for (const p of parts) p.delete();
    }
    return {
      manifold: true,
      volume: m.volume(),
      surfaceArea: m.surfaceArea(),
      size: [box.max[0] - box.min[0], box.max[1] - box.min[1], box.max[2] - box.min[2]],
      min: [box.min[0], box.min[1], box.min[2]],
      genus: m.genus(),
      components,
      triangles,
      vertices,
      solidity,
    };
  } finally {
    m.delete();
  }
}

type Manifold = InstanceType<ManifoldModule['Manifold']>;

/**
 * Whether a closed mesh's shells bound one consistent solid. A shell that is inside out (negative
 * volume) is fine as a cavity inside material; anywhere else it subtracts volume that is not
 * there. Shells that overlap count the shared volume twice. Both make the signed volume, and any
 * IoU computed from it, wrong, so a mesh can reach a target volume or an IoU above 1 with them.
 */
export interface Solidity {
  /** Volumes (positive) of inside-out shells that are not cavities in material. */
  inverted: number[];
  /** Volume inside two or more solids at once (counted more than once in the mesh's volume). */
  overlap: number;
}

/**
 * Solidity of the connected parts of a manifold. Each inside-out part is taken as a cavity of the
 * smallest part whose material wholly holds it; the solids left (part minus its cavities) must not
 * overlap. One positive part, the common case, costs nothing.
 */
function solidityOf(wasm: ManifoldModule, parts: readonly Manifold[]): Solidity {
  const out: Solidity = { inverted: [], overlap: 0 };
  if (parts.length === 1) return out;
  const made: Manifold[] = [];
  try {
    const pos = parts.filter((p) => p.volume() > 0);
    const solids = pos.map((p) => ({ m: p, vol: p.volume(), box: p.boundingBox() }));
    for (const n of parts.filter((p) => p.volume() < 0)) {
      const f = flipped(wasm, n);
      made.push(f);
      const need = f.volume();
      const fb = f.boundingBox();
      const hosts = solids
        .filter((s) => inside(fb, s.box))
        .sort((a, b) => a.vol - b.vol)
        .filter((s) => {
          const i = s.m.intersect(f);
          made.push(i);
          return Math.abs(i.volume() - need) <= 1e-6 * need + 1e-9;
        });
      const host = hosts[0];
      if (host === undefined) {
        out.inverted.push(need);
        continue;
      }
      host.m = host.m.subtract(f);
      made.push(host.m);
      host.box = host.m.boundingBox();
    }
    for (let i = 0; i < solids.length; i++)
      for (let j = i + 1; j < solids.length; j++) {
        if (!meets(solids[i]!.box, solids[j]!.box)) continue;
        const x = solids[i]!.m.intersect(solids[j]!.m);
        made.push(x);
        out.overlap += x.volume();
      }
    return out;
  } finally {
    for (const m of made) m.delete();
  }
}

type Box = { min: ArrayLike<number>; max: ArrayLike<number> };
const inside = (a: Box, b: Box): boolean =>
  [0, 1, 2].every((k) => a.min[k]! >= b.min[k]! && a.max[k]! <= b.max[k]!);
const meets = (a: Box, b: Box): boolean =>
  [0, 1, 2].every((k) => a.min[k]! < b.max[k]! && b.min[k]! < a.max[k]!);

/** The part with its triangles turned around (an inside-out shell made outward). */
function flipped(wasm: ManifoldModule, m: Manifold): Manifold {
  const mesh = m.getMesh();
  const tri = new Uint32Array(mesh.triVerts);
  for (let i = 0; i < tri.length; i += 3) [tri[i + 1], tri[i + 2]] = [tri[i + 2]!, tri[i + 1]!];
  return new wasm.Manifold(
    new wasm.Mesh({ numProp: mesh.numProp, vertProperties: mesh.vertProperties, triVerts: tri }),
  );
}
