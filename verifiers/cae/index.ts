/** The cae verifiers registered by default. */
import type { Verifier } from '../types.js';

export const caeVerifiers: readonly Verifier[] = [];
