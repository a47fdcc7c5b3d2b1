/** The viz verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { blendSceneVerifier } from './blend.js';
import { gltfSceneVerifier } from './gltf.js';
import { renderCompareVerifier } from './render.js';

export { blendSceneVerifier, BlendSceneParams, dumpBlendScene } from './blend.js';
export { gltfSceneVerifier, GltfSceneParams } from './gltf.js';
export { renderCompareVerifier, RenderCompareParams, renderBlend, type PackedImage } from './render.js';
export {
  findCopy,
  inputFiles,
  resample,
  type CopyFound,
  type CopyRule,
  type InputFile,
} from './copy-check.js';
export { validateGltf, type GltfIssue, type GltfValidation } from './gltf-validate.js';
export { BLENDER_IMAGE } from './blender.js';
export { decodePng, diffFraction, improvement } from './png-diff.js';
export type { SceneDump, SceneObject, SceneMaterial, Trs } from './scene.js';

export const vizVerifiers: readonly Verifier[] = [
  gltfSceneVerifier,
  blendSceneVerifier,
  renderCompareVerifier,
];
