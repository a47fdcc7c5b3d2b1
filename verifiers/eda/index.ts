/** The EDA verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { gerberCheck } from './gerber.js';
import { kicadBoard } from './kicad-board.js';
import { kicadNetlist } from './kicad-netlist.js';
import { spiceMeasure } from './ngspice.js';
import { verilogTestbench } from './verilog.js';
import { yosysEquivalence } from './yosys.js';

export { spiceMeasure, SpiceMeasureParams, CLI_IMAGE } from './ngspice.js';
export { verilogTestbench, VerilogTestbenchParams } from './verilog.js';
export { yosysEquivalence, YosysEquivalenceParams, readYosysOutput, type YosysReading } from './yosys.js';
export { kicadBoard, KicadBoardParams } from './kicad-board.js';
export {
  kicadNetlist,
  KicadNetlistParams,
  readKicadNetlist,
  comparePinPairs,
  componentValue,
} from './kicad-netlist.js';
export { KICAD_IMAGE, parseDrcReport, runDrc, type DrcReport } from './kicad-drc.js';
export {
  readKicadPcb,
  boardNets,
  compareNetlists,
  type KicadBoardFacts,
  type NetlistMatch,
} from './kicad-pcb.js';

export const edaVerifiers: readonly Verifier[] = [
  spiceMeasure,
  verilogTestbench,
  yosysEquivalence,
  kicadBoard,
  kicadNetlist,
  gerberCheck,
];
