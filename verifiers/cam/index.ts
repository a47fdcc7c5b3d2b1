/** The cam verifiers registered by default. */
import type { Verifier } from '../types.js';

export const camVerifiers: readonly Verifier[] = [];
