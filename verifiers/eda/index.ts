/** The EDA verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { gerberCheck } from './gerber.js';
import { kicadBoard } from './kicad-board.js';
import { kicadNetlist } from './kicad-netlist.js';
import { spiceMeasure } from './ngspice.js';
import { verilogTestbench } from './verilog.js';
import { yosysEquivalence } from './yosys.js';

export { YosysEquivalenceParams, readYosysOutput } from './yosys.js';

export { KicadNetlistParams, comparePinPairs, componentValue } from './kicad-netlist.js';
export { KICAD_IMAGE, parseDrcReport, runDrc } from './kicad-drc.js';
export { compareNetlists } from './kicad-pcb.js';

export const edaVerifiers: readonly Verifier[] = [
  spiceMeasure,
  verilogTestbench,
  yosysEquivalence,
  kicadBoard,
  kicadNetlist,
  gerberCheck,
];
