/** The CAD verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { fcstdDocument } from './fcstd.js';
import { shapeSimilarity } from './similarity.js';
import { stepGeometry } from './step.js';
import { stlGeometry } from './stl.js';

export const cadVerifiers: readonly Verifier[] = [stlGeometry, stepGeometry, fcstdDocument, shapeSimilarity];

export { stlGeometry, StlGeometryParams } from './stl.js';
export { stepGeometry, StepGeometryParams } from './step.js';
export { BrepPropertyParams } from './brep-judge.js';
export { fcstdDocument, FcstdDocumentParams } from './fcstd.js';
export { shapeSimilarity, ShapeSimilarityParams } from './similarity.js';
export { measureBrep, stopOcct, type BrepFacts, type BrepMeasurement, type CylinderFace } from './occt.js';
