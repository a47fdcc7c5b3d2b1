export type { Agent, AgentInput, AgentImage } from './types.js';
export { ScriptedAgent } from './scripted.js';
export { createAgent, validateAgentSpec } from './registry.js';
export { AgentError, type AgentErrorCode } from './errors.js';
export {
  LlmAgent,
  ReplayLlmAgent,
  isInvalidOutput,
  viewImageRequest,
  parseLlmSpec,
  REDACTED,
  redactionPattern,
  type Exchange,
  type LlmCall,
  anthropicAdapter,
  backoffMs,
  classify,
  costUsd,
  DEFAULT_RETRY,
  findPrice,
  llmOptionsFromEnv,
  openAiAdapter,
  RecordingFetch,
  type Fetch,
  type Reply,
  type RetryPolicy,
  type Transcript,
} from './llm/index.js';
