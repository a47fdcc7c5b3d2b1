/** The BIM verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { ifcModel } from './ifc-model.js';

export { ifcModel, type IfcPartTally } from './ifc-model.js';
export { IfcModelParams, IfcPart, IfcElementCheck, IfcSelect, IfcUntouched, IfcCount } from './ifc-params.js';
export {
  readFacts,
  elementGeometry,
  type IfcFacts,
  type IfcElement,
  type IfcGeometryFacts,
  type IfcValue,
} from './ifc-facts.js';
export { ifcApi, openIfc } from './ifc-api.js';
export {
  checkIntegrity,
  stepEntities,
  type IfcIntegrity,
  type StepEntity,
  type DanglingRef,
} from './ifc-integrity.js';

export const bimVerifiers: readonly Verifier[] = [ifcModel];
