export type { Agent, AgentInput, AgentFactory } from './types.js';
export { ScriptedAgent } from './scripted.js';
export { createAgent, validateAgentSpec } from './registry.js';
export { AgentError } from './errors.js';
