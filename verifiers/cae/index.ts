/** The CAE verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { calculixResult } from './calculix.js';
import { meshCheck } from './mesh.js';

export const caeVerifiers: readonly Verifier[] = [meshCheck, calculixResult];
