/**
 * A closed triangle mesh from a solid file, whatever its format: STL is parsed and welded; STEP and
 * BREP are meshed by OCCT (`occt.ts`) and then read as STL. Used where meshes are compared, so the
 * mesh must bound one consistent solid: overlapping shells (volume counted twice) and inside-out
 * shells (volume taken away where there is none) would skew an IoU, even above 1.
 */
import path from 'node:path';
import { ArtifactInvalidError } from '../errors.js';
import { fmt } from '../judge-value.js';
import { meshFacts } from './manifold.js';
import { measureBrep } from './occt.js';
import { scanStep } from './step-text.js';
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
  if (kind === 'step') {
    const problem = scanStep(bytes).problem;
    if (problem !== null) throw new ArtifactInvalidError(problem);
  }
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
    if (facts.manifold) {
      const { overlap, inverted } = facts.solidity;
      if (overlap > 1e-6 * Math.abs(facts.volume))
        throw new ArtifactInvalidError(
          `not one solid: ${facts.components} shells overlap by ${fmt(overlap)} (counted twice), so an overlap with the reference would be inflated`,
        );
      if (inverted.length > 0)
        throw new ArtifactInvalidError(
          `not a solid: ${inverted.length} inside-out shell(s) (volume ${inverted.map((v) => `−${fmt(v)}`).join(', ')}) enclose no material, so an overlap with the reference would be inflated`,
        );
      if (facts.volume <= 0)
        throw new ArtifactInvalidError(
          `not a solid: the mesh is inside out (volume ${fmt(facts.volume)}); its facets face inwards`,
        );
      return mesh;
    }
    status ||= facts.status;
  }
  throw new ArtifactInvalidError(
    `the ${kind.toUpperCase()} mesh is not a closed solid (manifold-3d: ${status})`,
  );
}
