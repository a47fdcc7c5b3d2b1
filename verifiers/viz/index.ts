/** The viz verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { blendSceneVerifier } from './blend.js';
import { gltfSceneVerifier } from './gltf.js';
import { renderCompareVerifier } from './render.js';

export { RenderCompareParams, renderBlend } from './render.js';

export { BLENDER_IMAGE } from './blender.js';
export { decodePng, diffFraction, improvement } from './png-diff.js';

export const vizVerifiers: readonly Verifier[] = [
  gltfSceneVerifier,
  blendSceneVerifier,
  renderCompareVerifier,
];
