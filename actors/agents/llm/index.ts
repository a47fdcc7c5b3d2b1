export { LlmAgent } from './llm-agent.js';
export { ReplayLlmAgent } from './replay.js';
export { isInvalidOutput } from './decision.js';
export { viewImageAction, viewImageRequest } from './tools.js';
export { REDACTED, redactionPattern } from './redact.js';
export { parseLlmSpec } from './spec.js';
export type { Exchange, LlmCall } from './types.js';
// The provider layer on its own, for callers that send their own prompt (the analysis's LLM judge).
export { openAiAdapter } from './openai.js';
export { anthropicAdapter } from './anthropic.js';
export { RecordingFetch, type Fetch } from './transport.js';
export { backoffMs, classify, DEFAULT_RETRY, type RetryPolicy } from './retry.js';
export { costUsd, findPrice } from './pricing.js';
export { llmOptionsFromEnv } from './spec.js';
export type { Reply, Transcript } from './types.js';
