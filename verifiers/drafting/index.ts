/** The drafting verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { dxfDrawing } from './dxf.js';
import { draftingScoreVerifier } from './score.js';

export const draftingVerifiers: readonly Verifier[] = [dxfDrawing, draftingScoreVerifier];

export { draftingScore } from './score.js';
