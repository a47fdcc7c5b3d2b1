/** Public surface of `verifiers/`: the registry, running and scoring, and the verifier types. */
export {
  criterionProblem,
  criterionTaskFiles,
  getVerifier,
  listVerifiers,
  registerVerifier,
  verifierRules,
  type CriterionProblem,
} from './registry.js';
export { defineVerifier, type Artifact, type Judging, type VerifierSpec } from './define.js';
export { criterionJsonSchemas } from './json-schema.js';
export { REFUSED_FILE } from './deliverable.js';
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
export { canonicalFormat, isKnownFormat, FORMATS, type FormatName } from './formats.js';
export { detectFormat, sniff, type SniffResult } from './sniff.js';
export { BUILTIN_VERIFIERS } from './builtins.js';
export {
  cadVerifiers,
  stlGeometry,
  stepGeometry,
  fcstdDocument,
  shapeSimilarity,
  stopOcct,
} from './cad/index.js';
export { caeVerifiers, meshCheck, calculixResult } from './cae/index.js';
export { camVerifiers, gcodeCheck } from './cam/index.js';
export { bimVerifiers, ifcModel } from './bim/index.js';
export { edaVerifiers, spiceMeasure, verilogTestbench, yosysEquivalence, kicadBoard } from './eda/index.js';
export {
  vizVerifiers,
  gltfSceneVerifier,
  blendSceneVerifier,
  renderCompareVerifier,
  decodePng,
  diffFraction,
} from './viz/index.js';
export { draftingVerifiers, dxfDrawing, draftingScoreVerifier, draftingScore } from './drafting/index.js';
export type {
  CriterionInput,
  RunTool,
  ToolRequest,
  ToolResult,
  Verdict,
  Verifier,
  VerifierContext,
} from './types.js';
