/**
 * `gltf.scene`: validates a delivered glTF/GLB with the Khronos glTF validator (accessor and index
 * bounds, buffer-view ranges, chunk lengths) and only then reopens it with @gltf-transform/core and
 * checks the scene a viewer shows (the default scene's nodes): named nodes (world or local
 * transforms within 0.01 units / 1°, type, parent, materials, camera type and yfov), materials
 * (base colour, metallic, roughness) and counts. Coordinates are the file's own (glTF: Y up,
 * metres): Blender's exporter maps Blender (x, y, z) to glTF (x, z, −y). Node `extras` and
 * `asset.generator` are never evidence.
 */
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { withTimeout } from '../timeout.js';
import type { Verdict } from '../types.js';
import { gltfScene, loadGltfSource, parseGltf } from './gltf-read.js';
import { describeIssue, validateGltf } from './gltf-validate.js';
import { checkScene, sceneVerdict } from './scene-check.js';
import { SceneSpecShape } from './spec.js';

/** Params of `gltf.scene`: the scene spec, validation, a time limit and a size limit. */
const GltfSceneParams = z.object({
  ...SceneSpecShape,
  /** How the Khronos validator's report gates the scene checks. */
  validation: z
    .object({
      /** Lowest severity that fails the file: `error` (default) or `warning`. */
      fail_on: z.enum(['error', 'warning']).default('error'),
      /** Issue codes that never fail (still reported), e.g. `MESH_PRIMITIVE_GENERATED_TANGENT_SPACE`. */
      ignore: z.array(z.string().regex(/^[A-Z0-9_]+$/, 'a validator issue code')).default([]),
    })
    .default({ fail_on: 'error', ignore: [] }),
  /** Time limit of validating and parsing, in seconds. */
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
export const gltfSceneVerifier = defineVerifier({
  name: 'gltf.scene',
  description:
    'Validates a glTF/GLB with the Khronos glTF validator, then checks the shown scene: named nodes (world/local transforms, camera, materials) and materials',
  params: GltfSceneParams,
  async judge({ ctx, params: p, file }): Promise<Verdict> {
    if (file.bytes.length > p.max_bytes)
      return {
        passed: false,
        score: 0,
        measured: file.bytes.length,
        expected: `≤ ${p.max_bytes} bytes`,
        reason: `${file.rel} is too large to check (${file.bytes.length} bytes)`,
      };
    const work = async (): Promise<Verdict> => {
      const src = await loadGltfSource(file.bytes, file.path, ctx.artifactsDir);
      const v = await validateGltf(file.bytes, {
        resources: src.resources,
        failOn: p.validation.fail_on,
        ignore: p.validation.ignore,
      });
      const validation = { validator: v.validator, ...v.counts, codes: v.codes };
      if (v.failing.length > 0) {
        const n = v.failing.length;
        return {
          passed: false,
          score: 0,
          measured: { validation },
          expected: {
            validation: `no ${p.validation.fail_on === 'error' ? 'errors' : 'errors or warnings'}`,
          },
          reason:
            `${file.rel}: the ${v.validator} found ${n}${v.truncated ? '+' : ''} ${p.validation.fail_on === 'error' ? 'error' : 'issue'}${n === 1 ? '' : 's'}: ` +
            `${v.failing.slice(0, 4).map(describeIssue).join('; ')}${n > 4 ? `; and ${n - 4} more` : ''}`,
        };
      }
      const verdict = sceneVerdict(file.rel, checkScene(gltfScene(await parseGltf(src)), p));
      return {
        ...verdict,
        measured: { ...(verdict.measured as Record<string, unknown>), validation },
        reason: `${verdict.reason}; ${v.validator}: ${v.counts.errors} errors, ${v.counts.warnings} warnings`,
      };
    };
    // A time-out or an unreadable file becomes a failing verdict in defineVerifier.
    return withTimeout(work, p.timeout_sec * 1000, `reading ${file.rel}`, ctx.signal);
  },
});
