/** The viz verifiers registered by default. */
import type { Verifier } from '../types.js';

export const vizVerifiers: readonly Verifier[] = [];
