/** The generic data verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { dataValues } from './values.js';

export { dataValues, DataValuesParams, DataValueSpec } from './values.js';
export { lookup, pathKeys, parseCsv, parseCsvTable, type CsvTable, type Found } from './lookup.js';

export const dataVerifiers: readonly Verifier[] = [dataValues];
