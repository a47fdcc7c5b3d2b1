/** The generic data verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { dataValues } from './values.js';

export { DataValuesParams } from './values.js';
export { lookup, pathKeys, parseCsvTable } from './lookup.js';

export const dataVerifiers: readonly Verifier[] = [dataValues];
