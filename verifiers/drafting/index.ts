/** The drafting verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { dxfDrawing } from './dxf.js';
import { draftingScoreVerifier } from './score.js';

export const draftingVerifiers: readonly Verifier[] = [dxfDrawing, draftingScoreVerifier];

export { dxfDrawing, DxfDrawingParams } from './dxf.js';
export {
  draftingScore,
  draftingScoreVerifier,
  DraftingScoreParams,
  DRAFTING_PASS,
  DRAFTING_WEIGHTS,
  type DraftingParts,
} from './score.js';
export { readDxf, type DxfModel } from './dxf-read.js';
