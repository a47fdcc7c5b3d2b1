/** The drafting verifiers registered by default. */
import type { Verifier } from '../types.js';

export const draftingVerifiers: readonly Verifier[] = [];
