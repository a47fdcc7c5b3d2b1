/** The CAD verifiers registered by default. */
import type { Verifier } from '../types.js';
import { stlGeometry } from './stl.js';

export const cadVerifiers: readonly Verifier[] = [stlGeometry];
