/**
 * `blend.scene`: opens the delivered `.blend` with Blender's background Python in a fresh
 * engiloop/blender container, dumps the scene (objects with world and local transforms, parents,
 * types, materials, cameras, lights, active camera, render settings) and checks it like
 * `gltf.scene`, in Blender's frame (Z up). Custom properties are named in reasons, never used as
 * measurements.
 */
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import type { Verdict, VerifierContext } from '../types.js';
import { DUMP_SCENE_PY } from './blender-py.js';
import { BLENDER_IMAGE, runBlender, sniffBlend } from './blender.js';
import type { SceneDump } from './scene.js';
import { checkScene, sceneVerdict } from './scene-check.js';
import { SceneSpecShape } from './spec.js';

/** Params of `blend.scene`: the scene spec, the image and a time limit for Blender. */
const BlendSceneParams = z.object({
  ...SceneSpecShape,
  /** Tool image with Blender. */
  image: z.string().default(BLENDER_IMAGE),
  /** Time limit of the Blender run, in seconds. */
  timeout_sec: z.number().positive().default(60),
});
export type BlendSceneParams = z.infer<typeof BlendSceneParams>;

const FILE = 'engiloop_scene.blend';

/** Dumps the scene of the `.blend` at `hostPath` with Blender (used by the bench too). */
function dumpBlendScene(
  ctx: Pick<VerifierContext, 'runTool' | 'signal'>,
  hostPath: string,
  o: { image?: string; timeoutMs?: number } = {},
): ReturnType<typeof runBlender<SceneDump>> {
  return runBlender<SceneDump>(ctx, {
    script: DUMP_SCENE_PY,
    files: [{ hostPath, dest: FILE }],
    args: [FILE],
    timeoutMs: o.timeoutMs ?? 60_000,
    ...(o.image === undefined ? {} : { image: o.image }),
  });
}

/** The `blend.scene` verifier. */
export const blendSceneVerifier = defineVerifier({
  name: 'blend.scene',
  description:
    'Opens a .blend in Blender, dumps its scene and checks named objects (world/local transforms), cameras, lights and materials',
  params: BlendSceneParams,
  async judge({ ctx, params: p, file }): Promise<Verdict> {
    const notBlend = sniffBlend(file.bytes);
    if (notBlend !== null)
      return { passed: false, score: 0, expected: 'a .blend file', reason: `${file.rel}: ${notBlend}` };
    const run = await dumpBlendScene(ctx, file.path, { image: p.image, timeoutMs: p.timeout_sec * 1000 });
    if (!run.ok)
      return {
        passed: false,
        score: 0,
        expected: 'a .blend Blender opens',
        reason: `${file.rel}: ${run.reason}`,
      };
    return sceneVerdict(file.rel, checkScene(run.value, p));
  },
});
