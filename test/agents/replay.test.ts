import { describe, expect, it } from 'vitest';
import {
  AgentError,
  LlmAgent,
  ReplayLlmAgent,
  type AgentInput,
  type Exchange,
  type LlmCall,
} from '../../actors/agents/index.js';
import {
  fakeSleep,
  inputFor,
  recorded,
  shellRound,
  startRecordedProvider,
  testTask,
} from './recorded-provider.js';

const task = testTask();
const inputs: AgentInput[] = [
  inputFor(task, 'Round 1 of 100. Workspace contents:\n(empty)'),
  inputFor(task, 'Round 2 of 100.\n$ python3 -c ...\n6.1.0', [
    shellRound(1, 'python3 -c ...', 'Round 1 of 100.'),
  ]),
  inputFor(task, 'Round 3 of 100.\n$ python3 render.py', [
    shellRound(1, 'python3 -c ...', 'Round 1 of 100.'),
    shellRound(2, 'python3 render.py', 'Round 2 of 100.\n$ python3 -c ...\n6.1.0'),
  ]),
];

/** Plays `inputs` live against recorded responses: a timeout, a 429, then answers. */
async function recordEpisode(): Promise<{ outputs: unknown[]; calls: LlmCall[] }> {
  await using server = await startRecordedProvider();
  server.queue(
    { status: 200, body: null, hang: true },
    recorded('openai-tool-call'),
    recorded('openai-429'),
    recorded('openai-batch'),
    recorded('openai-done'),
  );
  const calls: LlmCall[] = [];
  const agent = new LlmAgent({
    provider: 'openai',
    model: 'gpt-4o',
    apiKey: 'sk-proj-REPLAYTESTKEY0123456789abcdef',
    baseURL: server.openaiBaseURL,
    requestTimeoutMs: 300,
    sleep: fakeSleep().sleep,
    random: () => 0.5,
    onCall: (c) => calls.push(c),
  });
  const outputs: unknown[] = [];
  for (const i of inputs) outputs.push(await agent.decide(i));
  return { outputs, calls };
}

/** Exchanges as the event log would give them back: through JSON. */
function stored(calls: LlmCall[]): Exchange[] {
  return JSON.parse(JSON.stringify(calls.flatMap((c) => c.exchanges))) as Exchange[];
}

describe('ReplayLlmAgent re-drives a recorded episode offline', () => {
  it('reproduces outputs, usage and retries from recorded exchanges with no server', async () => {
    const live = await recordEpisode(); // the server is closed once this returns
    expect(live.calls.map((c) => c.exchanges.length)).toEqual([2, 2, 1]);

    const replay = new ReplayLlmAgent({ provider: 'openai', model: 'gpt-4o', exchanges: stored(live.calls) });
    for (const [n, i] of inputs.entries()) {
      expect(await replay.decide(i)).toEqual(live.outputs[n]);
      const [a, b] = [replay.lastCall!, live.calls[n]!];
      expect(a.usage).toEqual(b.usage);
      expect(a.costUsd).toEqual(b.costUsd);
      expect(a.retries.map((r) => r.status ?? r.code)).toEqual(b.retries.map((r) => r.status ?? r.code));
    }
    expect(live.calls[0]!.retries[0]!.code).toBe('TIMEOUT');
    expect(live.calls[1]!.retries[0]!.status).toBe(429);
    expect(replay.remaining).toBe(0);
    await expect(replay.decide(inputs[0]!)).rejects.toMatchObject({ code: 'REPLAY_EXHAUSTED' });
  });

  it('reports a request that differs from the recording (REPLAY_MISMATCH), without retrying', async () => {
    const live = await recordEpisode();
    const replay = new ReplayLlmAgent({ provider: 'openai', model: 'gpt-4o', exchanges: stored(live.calls) });
    await replay.decide(inputs[0]!);
    const changed = { ...inputs[1]!, observation: 'Round 2 of 100.\n$ python3 -c ...\n6.2.0' };
    const err = (await replay.decide(changed).catch((e: unknown) => e)) as AgentError;
    expect(err).toBeInstanceOf(AgentError);
    expect(err.code).toBe('REPLAY_MISMATCH');
    expect(err.message).toMatch(/request 3 \(attempt 1\) differs from the recording/);
    expect(err.message).toContain('first difference at messages[4].content');
    expect(replay.lastCall!.retries).toEqual([]);
  });

  it('reports an altered recording (changed model option) as a mismatch', async () => {
    const live = await recordEpisode();
    const replay = new ReplayLlmAgent({
      provider: 'openai',
      model: 'gpt-4o',
      maxOutputTokens: 1024,
      exchanges: stored(live.calls),
    });
    await expect(replay.decide(inputs[0]!)).rejects.toMatchObject({
      code: 'REPLAY_MISMATCH',
      message: expect.stringContaining(
        'first difference at max_completion_tokens: 1024 vs recorded undefined',
      ),
    });
  });

  it('reports a tampered recorded exchange', async () => {
    const live = await recordEpisode();
    const ex = stored(live.calls);
    ex[0]!.request.bodySha256 = '0'.repeat(64);
    const replay = new ReplayLlmAgent({ provider: 'openai', model: 'gpt-4o', exchanges: ex });
    await expect(replay.decide(inputs[0]!)).rejects.toMatchObject({ code: 'REPLAY_MISMATCH' });
  });

  it('replays a recorded Anthropic call with its 529 retry', async () => {
    let exchanges: Exchange[];
    let output: unknown;
    {
      await using server = await startRecordedProvider();
      server.queue(recorded('anthropic-529'), recorded('anthropic-tool-use'));
      const live = new LlmAgent({
        provider: 'anthropic',
        model: 'claude-haiku-4-5-20251001',
        apiKey: 'sk-ant-api03-REPLAYTEST0123456789',
        baseURL: server.anthropicBaseURL,
        sleep: fakeSleep().sleep,
      });
      output = await live.decide(inputs[0]!);
      exchanges = JSON.parse(JSON.stringify(live.lastCall!.exchanges)) as Exchange[];
    }
    const replay = new ReplayLlmAgent({
      provider: 'anthropic',
      model: 'claude-haiku-4-5-20251001',
      exchanges,
    });
    expect(await replay.decide(inputs[0]!)).toEqual(output);
    expect(replay.lastCall!.retries.map((r) => r.status)).toEqual([529]);
  });
});
