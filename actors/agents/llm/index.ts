export { LlmAgent, type LlmAgentOptions } from './llm-agent.js';
export { ReplayLlmAgent, replayFetch, type ReplayLlmAgentOptions } from './replay.js';
export { isInvalidOutput, replyToDecision, type InvalidOutput } from './decision.js';
export { viewImageAction, viewImageRequest, toolSpecs } from './tools.js';
export { PROMPT_VERSION, systemPrompt, taskText } from './prompt.js';
export { buildTranscript } from './history.js';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
export {
  loadPriceTable,
  findPrice,
  costUsd,
  PriceTableSchema,
  type Price,
  type PriceTable,
} from './pricing.js';
export { DEFAULT_PRICES } from './default-prices.js';
export { REDACTED } from './redact.js';
export { parseLlmSpec, llmOptionsFromEnv } from './spec.js';
export type { Exchange, LlmCall, LlmTotals, ProviderName, RetryRecord, Usage } from './types.js';
