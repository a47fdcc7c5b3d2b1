/** The bim verifiers registered by default. */
import type { Verifier } from '../types.js';

export const bimVerifiers: readonly Verifier[] = [];
