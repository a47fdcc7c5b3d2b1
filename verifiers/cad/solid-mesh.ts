/**
 * A closed triangle mesh from a solid file, whatever its format: STL is parsed and welded; STEP and
 * BREP are meshed by OCCT (`occt.ts`) and then read as STL. Used where meshes are compared.
 */
import path from 'node:path';
import { ArtifactInvalidError } from '../errors.js';
import { meshFacts } from './manifold.js';
import { measureBrep } from './occt.js';
import { parseStl } from './stl-parse.js';
import { weld, type IndexedMesh } from './weld.js';

/** Solid file kinds read here. */
export type SolidKind = 'stl' | 'step' | 'brep';

/** The kind of a solid file from a declared format or its extension (default: STL). */
export function solidKind(declared: string | undefined, file: string): SolidKind {
  const f = (declared ?? path.extname(file).slice(1)).toLowerCase();
  if (f === 'step' || f === 'stp') return 'step';
  if (f === 'brep' || f === 'brp') return 'brep';
  return 'stl';
}

/** Options of `solidMesh`. */
export interface SolidMeshOptions {
  limitMs?: number;
  /** Linear deflection when OCCT meshes a B-rep, in model units. Default 0.05. */
  deflection?: number;
}

/**
 * A welded, closed (manifold) mesh of the solid. Rejects with `ArtifactInvalidError` when the file
 * cannot be read or its mesh is not closed, `VerifierTimeoutError` past the limit.
 */
export async function solidMesh(
  bytes: Buffer,
  kind: SolidKind,
  opts: SolidMeshOptions = {},
): Promise<IndexedMesh> {
  let stl = bytes;
  if (kind !== 'stl') {
    const m = await measureBrep(bytes, kind, {
      meshDeflection: opts.deflection ?? 0.05,
      ...(opts.limitMs === undefined ? {} : { limitMs: opts.limitMs }),
    });
    if (m.facts.solids === 0) throw new ArtifactInvalidError(`the ${kind.toUpperCase()} file holds no solid`);
    stl = m.mesh!;
  }
  const soup = parseStl(stl, opts.limitMs === undefined ? {} : { limitMs: opts.limitMs });
  let status = '';
  for (const mode of ['exact', 'quantized'] as const) {
    const mesh = weld(soup, mode);
    const facts = await meshFacts(mesh);
    if (facts.manifold) return mesh;
    status ||= facts.status;
  }
  throw new ArtifactInvalidError(
    `the ${kind.toUpperCase()} mesh is not a closed solid (manifold-3d: ${status})`,
  );
}
