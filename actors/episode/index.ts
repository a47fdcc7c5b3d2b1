export { runEpisode } from './run-episode.js';
export { snapshotDigest, stableStringify } from './digest.js';
export { formatResult, observationText } from './observe.js';
export { RecordingError } from './errors.js';
export type {
  EpisodeDeps,
  EpisodeOptions,
  EpisodeResult,
  AgentUsage,
  EpisodeProgress,
  EventSink,
  BlobSink,
  SandboxFactory,
  VerifyFn,
} from './ports.js';
export { verifyTask } from './verify-task.js';
export { resultOf, resultFromLog, agentUsage, haltedStage, type ResultFacts } from './result.js';
export { pendingEffect, interruptedAction } from './restore.js';
export { normalizer, firstDiff } from './normalize.js';
export {
  attribute,
  consumedBy,
  deliverableSandbox,
  isMultiStage,
  type Attribution,
  type BreakCause,
} from './attribute.js';
export { stagesOf, latestStages } from './stage-list.js';
export { episodeDeps } from './deps.js';
