/**
 * `gltf.scene`: reopens a delivered glTF/GLB with @gltf-transform/core and checks its nodes (by
 * name: world transforms within 0.01 units / 1°, type, materials, camera type and yfov), its
 * materials (base colour, metallic, roughness) and counts. Coordinates are the file's own (glTF:
 * Y up, metres): Blender's exporter maps Blender (x, y, z) to glTF (x, z, −y).
 */
import { z } from 'zod';
import { readDeliverable } from '../deliverable.js';
import { isArtifactInvalid, isVerifierTimeout } from '../errors.js';
import { withTimeout } from '../timeout.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { gltfScene, readGltf } from './gltf-read.js';
import { checkScene, sceneVerdict, SceneSpecShape } from './spec.js';

/** Params of `gltf.scene`: the scene spec, a time limit and a size limit. */
export const GltfSceneParams = z.object({
  ...SceneSpecShape,
  timeout_sec: z.number().positive().default(20),
  /** Larger files fail without being parsed. Default 64 MiB. */
  max_bytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
});
export type GltfSceneParams = z.infer<typeof GltfSceneParams>;

/** The `gltf.scene` verifier. */
export const gltfSceneVerifier: Verifier = {
  name: 'gltf.scene',
  description:
    'Reopens a glTF/GLB and checks named nodes (world transforms, camera, materials) and materials',
  params: GltfSceneParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = GltfSceneParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    if (read.bytes.length > p.max_bytes)
      return {
        passed: false,
        score: 0,
        measured: read.bytes.length,
        expected: `≤ ${p.max_bytes} bytes`,
        reason: `${read.rel} is too large to check (${read.bytes.length} bytes)`,
      };
    try {
      const doc = await withTimeout(
        () => readGltf(read.bytes, read.path, ctx.artifactsDir),
        p.timeout_sec * 1000,
        `reading ${read.rel}`,
        ctx.signal,
      );
      return sceneVerdict(read.rel, checkScene(gltfScene(doc), p));
    } catch (err) {
      if (isArtifactInvalid(err) || isVerifierTimeout(err))
        return {
          passed: false,
          score: 0,
          expected: 'a glTF 2.0 asset',
          reason: `${read.rel}: ${err.message}`,
        };
      throw err;
    }
  },
};
