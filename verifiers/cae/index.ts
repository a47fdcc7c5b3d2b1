/** The CAE verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { calculixResult } from './calculix.js';
import { meshCheck } from './mesh.js';

export { calculixResult, CalculixResultParams, CCX_IMAGE } from './calculix.js';
export { meshCheck, MeshCheckParams } from './mesh.js';
export { parseMesh, type MeshSummary, type MeshGroup } from './mesh-parse.js';
export { parseFrd, vonMises, type FrdFile, type FrdBlock } from './frd-parse.js';
export { parseDat, parseSta, type DatFile, type DatTable, type StaIncrement } from './dat-parse.js';

export const caeVerifiers: readonly Verifier[] = [meshCheck, calculixResult];
