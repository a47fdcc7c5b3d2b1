/** The BIM verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { ifcModel } from './ifc-model.js';

export { IfcModelParams } from './ifc-params.js';

export const bimVerifiers: readonly Verifier[] = [ifcModel];
