/**
 * Agent specs from the command line: `scripted` (the reference solution), `scripted:<name>` (a
 * defect variant or an alternative valid solution of the task), and the LLM providers
 * `openai:<model>` and `anthropic:<model>` (keys and base URLs from the environment, see
 * `llm/spec.ts`).
 */
import type { LoadedTask } from '../../tasks/index.js';
import { AgentError } from './errors.js';
import { LlmAgent, type LlmAgentOptions } from './llm/llm-agent.js';
import { llmOptionsFromEnv } from './llm/spec.js';
import { ScriptedAgent } from './scripted.js';
import type { Agent } from './types.js';

/** Options of `createAgent`. */
export interface CreateAgentOptions {
  /** Where keys, base URLs and `ENGILOOP_PRICES` are read. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Extra LLM agent settings (history window, retry policy, callbacks); ignored for `scripted`. */
  llm?: Partial<Omit<LlmAgentOptions, 'provider' | 'model' | 'apiKey'>>;
}

/**
 * Checks a spec before anything starts; throws AgentError naming the problem: `AGENT_UNKNOWN`,
 * `AGENT_KEY_MISSING` (naming the variable) or `PRICES_INVALID`.
 */
export function validateAgentSpec(spec: string, env: NodeJS.ProcessEnv = process.env): void {
  if (llmOptionsFromEnv(spec, env)) return;
  const [kind] = spec.split(':');
  if (kind !== 'scripted')
    throw new AgentError(
      'AGENT_UNKNOWN',
      `unknown agent "${spec}": use "scripted", "scripted:<defect>", "openai:<model>" or "anthropic:<model>"`,
    );
}

/** Builds the agent for one episode of `lt`. Sends nothing: an LLM agent's first request is its first `decide()`. */
export function createAgent(spec: string, lt: LoadedTask, opts: CreateAgentOptions = {}): Agent {
  const llm = llmOptionsFromEnv(spec, opts.env ?? process.env);
  if (llm) return new LlmAgent({ ...llm, ...opts.llm });
  validateAgentSpec(spec, opts.env);
  const defect = spec.slice('scripted:'.length);
  if (spec === 'scripted') return new ScriptedAgent(spec, lt.task.reference);
  const d = lt.defects[defect] ?? lt.alternatives[defect];
  if (!d) {
    const have = [...Object.keys(lt.defects), ...Object.keys(lt.alternatives)];
    throw new AgentError(
      'AGENT_DEFECT_MISSING',
      `task ${lt.task.id} has no defect or alternative "${defect}" (has: ${have.join(', ') || 'none'})`,
    );
  }
  return new ScriptedAgent(spec, d.actions);
}
