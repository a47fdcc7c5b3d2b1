/** The CAM verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { gcodeCheck } from './gcode.js';

export { parseGcode } from './gcode-parse.js';

export const camVerifiers: readonly Verifier[] = [gcodeCheck];
