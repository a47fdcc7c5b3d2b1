export type { Agent, AgentInput, AgentImage, AgentFactory } from './types.js';
export { ScriptedAgent } from './scripted.js';
export { createAgent, validateAgentSpec, type CreateAgentOptions } from './registry.js';
export { AgentError } from './errors.js';
export {
  LlmAgent,
  ReplayLlmAgent,
  isInvalidOutput,
  viewImageRequest,
  loadPriceTable,
  parseLlmSpec,
  PROMPT_VERSION,
  DEFAULT_PRICES,
  type LlmAgentOptions,
  type ReplayLlmAgentOptions,
  type InvalidOutput,
  type Exchange,
  type LlmCall,
  type LlmTotals,
  type RetryRecord,
  type Usage,
  type PriceTable,
} from './llm/index.js';
