/** The EDA verifiers registered by default. */
import type { Verifier } from '../types.js';
import { spiceMeasure } from './ngspice.js';
import { verilogTestbench } from './verilog.js';

export const edaVerifiers: readonly Verifier[] = [spiceMeasure, verilogTestbench];
