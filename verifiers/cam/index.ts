/** The CAM verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { gcodeCheck } from './gcode.js';

export { gcodeCheck, GcodeCheckParams } from './gcode.js';
export { parseGcode, type GcodeProgram, type Move } from './gcode-parse.js';
export { estimatePrintTime, PRUSA_DEFAULT_MACHINE, type Machine } from './gcode-time.js';

export const camVerifiers: readonly Verifier[] = [gcodeCheck];
