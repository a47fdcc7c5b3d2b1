export { LlmAgent } from './llm-agent.js';
export { ReplayLlmAgent } from './replay.js';
export { isInvalidOutput } from './decision.js';
export { viewImageAction, viewImageRequest } from './tools.js';
export { REDACTED, redactionPattern } from './redact.js';
export { parseLlmSpec } from './spec.js';
export type { Exchange, LlmCall } from './types.js';
