/** The CAD verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { fcstdDocument } from './fcstd.js';
import { shapeSimilarity } from './similarity.js';
import { stepGeometry } from './step.js';
import { stlGeometry } from './stl.js';

export const cadVerifiers: readonly Verifier[] = [stlGeometry, stepGeometry, fcstdDocument, shapeSimilarity];

export { stopOcct } from './occt.js';
