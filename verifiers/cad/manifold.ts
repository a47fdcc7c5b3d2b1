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
    for (const p of parts) p.delete();
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
    };
  } finally {
    m.delete();
  }
}
