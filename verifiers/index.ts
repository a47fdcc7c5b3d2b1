/** Public surface of `verifiers/`: the registry, running and scoring, and the verifier types. */
export { criterionProblem, getVerifier, listVerifiers, registerVerifier } from './registry.js';
export {
  verifyAll,
  verifyCriterion,
  DEFAULT_VERIFY_TIMEOUT_MS,
  type CriterionToVerify,
  type VerifyOptions,
} from './run.js';
export {
  binaryScore,
  closeness,
  engiScore,
  quantitativeScore,
  relativeError,
  taskScore,
  DEFAULT_CLOSENESS,
  type ClosenessBounds,
  type ScoredVerdict,
} from './score.js';
export {
  VerifierError,
  UnknownVerifierError,
  VerifierTimeoutError,
  ArtifactInvalidError,
  isUnknownVerifier,
  isVerifierTimeout,
  isArtifactInvalid,
  type VerifierErrorCode,
} from './errors.js';
export { fileFormat, FileFormatParams } from './file.js';
export { stlGeometry, StlGeometryParams } from './cad/stl.js';
export { spiceMeasure, SpiceMeasureParams } from './eda/ngspice.js';
export { verilogTestbench, VerilogTestbenchParams } from './eda/verilog.js';
export type {
  CriterionInput,
  RunTool,
  ToolRequest,
  ToolResult,
  Verdict,
  Verifier,
  VerifierContext,
} from './types.js';
