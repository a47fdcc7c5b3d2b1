/** Public surface of `verifiers/`: the registry, running and scoring, and the verifier types. */
export { criterionProblem, getVerifier, listVerifiers, registerVerifier, verifierRules } from './registry.js';
export { criterionJsonSchemas } from './json-schema.js';
export { REFUSED_FILE } from './deliverable.js';
export { verifyAll, verifyCriterion, type CriterionToVerify } from './run.js';
export {
  binaryScore,
  closeness,
  engiScore,
  quantitativeScore,
  relativeError,
  taskScore,
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
export { canonicalFormat, isKnownFormat } from './formats.js';
export { detectFormat } from './sniff.js';
export { imageMediaType, pngSize } from './magic.js';
export { decodePng, diffFraction } from './viz/index.js';
export type { RunTool, ToolRequest, ToolResult, Verdict, VerifierContext } from './types.js';
