import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AgentError,
  LlmAgent,
  ScriptedAgent,
  createAgent,
  parseLlmSpec,
  validateAgentSpec,
} from '../../actors/agents/index.js';
import type { LoadedTask } from '../../tasks/index.js';
import { inputFor, recorded, startRecordedProvider, testTask } from './recorded-provider.js';

const lt: LoadedTask = { task: testTask(), dir: '/nonexistent', defects: {}, alternatives: {} };

function thrown(f: () => unknown): AgentError {
  try {
    f();
  } catch (e) {
    if (e instanceof AgentError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('agent registry', () => {
  it('names the missing key variable before anything starts', () => {
    const o = thrown(() => validateAgentSpec('openai:gpt-4o', {}));
    expect(o.code).toBe('AGENT_KEY_MISSING');
    expect(o.message).toContain('OPENAI_API_KEY');
    const a = thrown(() =>
      createAgent('anthropic:claude-haiku-4-5', lt, { env: { OPENAI_API_KEY: 'sk-x' } }),
    );
    expect(a.code).toBe('AGENT_KEY_MISSING');
    expect(a.message).toContain('ANTHROPIC_API_KEY');
  });

  it('accepts OPENAI_BASE_URL without a key (local servers) and keeps colons in model names', () => {
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' };
    expect(() => validateAgentSpec('openai:llama3.1:8b', env)).not.toThrow();
    const agent = createAgent('openai:llama3.1:8b', lt, { env }) as LlmAgent;
    expect(agent).toBeInstanceOf(LlmAgent);
    expect([agent.name, agent.provider, agent.model]).toEqual([
      'openai:llama3.1:8b',
      'openai',
      'llama3.1:8b',
    ]);
  });

  it('rejects unknown specs and specs without a model', () => {
    expect(thrown(() => validateAgentSpec('gpt-4o', {})).code).toBe('AGENT_UNKNOWN');
    expect(thrown(() => validateAgentSpec('openai:', { OPENAI_API_KEY: 'k' })).message).toContain(
      'names no model',
    );
    expect(parseLlmSpec('scripted:wrong-width')).toBeNull();
  });

  it('keeps scripted agents as they were', () => {
    expect(() => validateAgentSpec('scripted', {})).not.toThrow();
    expect(createAgent('scripted', lt)).toBeInstanceOf(ScriptedAgent);
    expect(thrown(() => createAgent('scripted:nope', lt)).code).toBe('AGENT_DEFECT_MISSING');
  });

  it('applies an ENGILOOP_PRICES file and rejects a bad one by name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engiloop-prices-'));
    const good = join(dir, 'prices.yaml');
    writeFileSync(good, 'openai:\n  gpt-4o: { input: 1, output: 2 }\n');
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'openai:\n  gpt-4o: { input: cheap }\n');
    expect(
      thrown(() => validateAgentSpec('openai:gpt-4o', { OPENAI_API_KEY: 'k', ENGILOOP_PRICES: bad })).message,
    ).toMatch(/ENGILOOP_PRICES=.*bad\.yaml: openai\.gpt-4o\.input/);

    await using server = await startRecordedProvider();
    server.queue(recorded('openai-tool-call'));
    const env = {
      OPENAI_API_KEY: 'sk-proj-registrytest0123456789',
      OPENAI_BASE_URL: server.openaiBaseURL,
      ENGILOOP_PRICES: good,
    };
    const agent = createAgent('openai:gpt-4o', lt, {
      env,
      llm: { sleep: () => Promise.resolve() },
    }) as LlmAgent;
    await agent.decide(inputFor(lt.task, 'Round 1 of 100.'));
    // No cached_input price in the override: cached tokens cost the input price.
    expect(agent.lastCall!.costUsd).toBeCloseTo((1512 * 1 + 31 * 2) / 1e6, 12);
  });
});
