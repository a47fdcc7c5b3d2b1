/** The EDA verifiers registered by default, and their public names. */
import type { Verifier } from '../types.js';
import { gerberCheck } from './gerber.js';
import { kicadBoard } from './kicad-board.js';
import { kicadNetlist } from './kicad-netlist.js';
import { spiceMeasure } from './ngspice.js';
import { verilogTestbench } from './verilog.js';
import { yosysEquivalence } from './yosys.js';

export { spiceMeasure, SpiceMeasureParams, CLI_IMAGE } from './ngspice.js';
export { checkNetlist, prepareNetlist, readMeasurement, type NetlistRefusal } from './netlist.js';
export { verilogTestbench, VerilogTestbenchParams } from './verilog.js';
export { scanDesign, type DesignRefusal } from './verilog-scan.js';
export { sealTestbench, readBenchOutput, countChecks, type SealedBench } from './verilog-bench.js';
export { yosysEquivalence, YosysEquivalenceParams, readYosysOutput, type YosysReading } from './yosys.js';
export { readReport, readStatJson, type CellStats } from './yosys-stat.js';
export { gerberCheck, GerberCheckParams, checkGerberPackage } from './gerber.js';
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
  withoutNetClasses,
  DEFAULT_NET_CLASS,
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
