/**
 * `blend.scene`: opens the delivered `.blend` with Blender's background Python in a fresh
 * engiloop/blender container, dumps the scene (objects with world transforms, types, materials,
 * cameras, lights, active camera, render settings) and checks it like `gltf.scene`, in Blender's
 * frame (Z up).
 */
import { z } from 'zod';
import { readDeliverable } from '../deliverable.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { DUMP_SCENE_PY } from './blender-py.js';
import { BLENDER_IMAGE, runBlender, sniffBlend } from './blender.js';
import type { SceneDump } from './scene.js';
import { checkScene, sceneVerdict, SceneSpecShape } from './spec.js';

/** Params of `blend.scene`: the scene spec, the image and a time limit for Blender. */
export const BlendSceneParams = z.object({
  ...SceneSpecShape,
  image: z.string().default(BLENDER_IMAGE),
  timeout_sec: z.number().positive().default(60),
});
export type BlendSceneParams = z.infer<typeof BlendSceneParams>;

const FILE = 'engiloop_scene.blend';

/** Dumps the scene of the `.blend` at `hostPath` with Blender (used by the bench too). */
export function dumpBlendScene(
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
export const blendSceneVerifier: Verifier = {
  name: 'blend.scene',
  description:
    'Opens a .blend in Blender, dumps its scene and checks named objects, cameras, lights and materials',
  params: BlendSceneParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = BlendSceneParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    const notBlend = sniffBlend(read.bytes);
    if (notBlend !== null)
      return { passed: false, score: 0, expected: 'a .blend file', reason: `${read.rel}: ${notBlend}` };
    const run = await dumpBlendScene(ctx, read.path, { image: p.image, timeoutMs: p.timeout_sec * 1000 });
    if (!run.ok)
      return {
        passed: false,
        score: 0,
        expected: 'a .blend Blender opens',
        reason: `${read.rel}: ${run.reason}`,
      };
    return sceneVerdict(read.rel, checkScene(run.value, p));
  },
};
