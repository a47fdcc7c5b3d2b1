/**
 * LLM agent specs and their environment: `openai:<model>` and `anthropic:<model>` (the model may
 * contain colons, e.g. `openai:llama3.1:8b` for Ollama).
 *
 * | provider  | key               | base URL            |
 * |-----------|-------------------|---------------------|
 * | openai    | OPENAI_API_KEY    | OPENAI_BASE_URL     |
 * | anthropic | ANTHROPIC_API_KEY | ANTHROPIC_BASE_URL  |
 *
 * A missing key is an error before anything starts — except for `openai` with `OPENAI_BASE_URL`
 * set: local OpenAI-compatible servers (Ollama, vLLM without `--api-key`) need none, so the key
 * `none` is sent. `ENGILOOP_PRICES` names a price table file merged over the defaults.
 */
import { AgentError } from '../errors.js';
import type { LlmAgentOptions } from './llm-agent.js';
import { loadPriceTable } from './pricing.js';
import type { ProviderName } from './types.js';

const PROVIDERS: Record<ProviderName, { key: string; base: string }> = {
  openai: { key: 'OPENAI_API_KEY', base: 'OPENAI_BASE_URL' },
  anthropic: { key: 'ANTHROPIC_API_KEY', base: 'ANTHROPIC_BASE_URL' },
};

/** `{ provider, model }` when `spec` names an LLM provider, else `null`. */
export function parseLlmSpec(spec: string): { provider: ProviderName; model: string } | null {
  const at = spec.indexOf(':');
  const kind = at < 0 ? spec : spec.slice(0, at);
  if (kind !== 'openai' && kind !== 'anthropic') return null;
  const model = at < 0 ? '' : spec.slice(at + 1).trim();
  if (!model) throw new AgentError('AGENT_UNKNOWN', `agent "${spec}" names no model: use "${kind}:<model>"`);
  return { provider: kind, model };
}

/**
 * Agent options for an LLM spec from `env`. Throws AgentError `AGENT_KEY_MISSING` naming the
 * variable, or `PRICES_INVALID` for a bad `ENGILOOP_PRICES` file.
 */
export function llmOptionsFromEnv(
  spec: string,
  env: NodeJS.ProcessEnv = process.env,
): Pick<LlmAgentOptions, 'provider' | 'model' | 'apiKey' | 'baseURL' | 'name' | 'prices'> | null {
  const p = parseLlmSpec(spec);
  if (!p) return null;
  const vars = PROVIDERS[p.provider];
  const baseURL = env[vars.base]?.trim() || undefined;
  let apiKey = env[vars.key]?.trim() || undefined;
  if (!apiKey && p.provider === 'openai' && baseURL) apiKey = 'none';
  if (!apiKey)
    throw new AgentError(
      'AGENT_KEY_MISSING',
      `agent "${spec}" needs ${vars.key} in the environment${p.provider === 'openai' ? ` (or ${vars.base} for a local server that needs no key)` : ''}`,
    );
  return { ...p, apiKey, name: spec, prices: loadPriceTable(env), ...(baseURL ? { baseURL } : {}) };
}
