import { describe, expect, it } from 'vitest';
import { AgentError, LlmAgent, isInvalidOutput, viewImageRequest } from '../../actors/agents/index.js';
import { parseDecision } from '../../machines/decision.js';
import {
  fakeSleep,
  inputFor,
  recorded,
  shellRound,
  startRecordedProvider,
  testTask,
} from './recorded-provider.js';

const KEY = 'sk-proj-TESTKEY0123456789abcdefghijklmnopqrstuvwxyz';

function agent(baseURL: string, extra: Partial<ConstructorParameters<typeof LlmAgent>[0]> = {}) {
  const s = fakeSleep();
  const a = new LlmAgent({
    provider: 'openai',
    model: 'gpt-4o',
    apiKey: KEY,
    baseURL,
    sleep: s.sleep,
    random: () => 0.5,
    ...extra,
  });
  return { agent: a, delays: s.delays };
}

describe('OpenAI agent against recorded Chat Completions responses', () => {
  it('turns a recorded tool call into an action, sending the protocol prompt and tools', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('openai-tool-call'));
    const { agent: a } = agent(server.openaiBaseURL);
    const raw = await a.decide(inputFor(testTask(), 'Round 1 of 100. Workspace contents:\n(empty)'));
    expect(raw).toEqual({
      actions: [{ type: 'shell', command: 'python3 -c "import ezdxf; print(ezdxf.__version__)"' }],
    });
    expect(parseDecision(raw).kind).toBe('act');

    const req = server.received[0]!;
    expect(req.url).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = req.body as {
      model: string;
      messages: { role: string; content: unknown }[];
      tools: { function: { name: string } }[];
    };
    expect(body.model).toBe('gpt-4o');
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(String(body.messages[1]!.content)).toContain('Draw a 120 x 80 mm plate');
    expect(body.tools.map((t) => t.function.name)).toEqual(['shell', 'view_image', 'done', 'fail']);
  });

  it('turns several recorded tool calls into one batch; view_image becomes a marked shell action', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('openai-batch'));
    const { agent: a } = agent(server.openaiBaseURL);
    const raw = (await a.decide(inputFor(testTask(), 'Round 3 of 100.'))) as {
      actions: { type: 'shell'; command: string }[];
    };
    expect(raw.actions).toHaveLength(2);
    expect(raw.actions[0]).toEqual({ type: 'shell', command: 'python3 render.py plate.dxf out/plate.png' });
    expect(viewImageRequest(raw.actions[1]!)).toEqual({ path: 'out/plate.png' });
    expect(parseDecision(raw).kind).toBe('act');
  });

  it('records malformed tool arguments from a recorded response as an invalid output with the reason', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('openai-malformed-args'));
    const { agent: a } = agent(server.openaiBaseURL);
    const raw = await a.decide(inputFor(testTask(), 'Round 2 of 100.'));
    expect(isInvalidOutput(raw)).toBe(true);
    if (!isInvalidOutput(raw)) return;
    expect(raw.invalid).toMatch(
      /^tool call 1 \(shell\): arguments are not valid JSON \(the answer was cut at the output token limit\)/,
    );
    expect(String(raw.tool_calls[0]!.arguments)).toContain('msp.add_lwpolyline');
    expect(parseDecision(raw).kind).toBe('invalid');
    // Recorded in full, and billed: the tokens were spent.
    expect(a.lastCall!.exchanges).toHaveLength(1);
    expect(a.lastCall!.usage).toEqual({ input: 2894, output: 64, cached: 2048, cacheWrite: 0 });
  });

  it('maps a recorded refusal to fail("refused: …")', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('openai-refusal'));
    const { agent: a } = agent(server.openaiBaseURL);
    const raw = await a.decide(inputFor(testTask(), 'Round 1 of 100.'));
    expect(raw).toEqual({ fail: "refused: I'm sorry, but I can't help with that request." });
    expect(parseDecision(raw)).toEqual({
      kind: 'fail',
      reason: "refused: I'm sorry, but I can't help with that request.",
    });
  });

  it('retries a recorded 429 once with backoff (retry-after honoured) and records it', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('openai-429'), recorded('openai-tool-call'));
    const retries: unknown[] = [];
    const { agent: a, delays } = agent(server.openaiBaseURL, { onRetry: (r) => retries.push(r) });
    const raw = await a.decide(inputFor(testTask(), 'Round 1 of 100.'));
    expect(parseDecision(raw).kind).toBe('act');
    const call = a.lastCall!;
    // attempt 1: exp = 1000 ms, equal jitter with random 0.5 → 750 ms; retry-after-ms 1200 wins.
    expect(call.retries).toEqual([
      { attempt: 1, status: 429, message: expect.stringContaining('Rate limit reached'), delayMs: 1200 },
    ]);
    expect(retries).toEqual(call.retries);
    expect(delays).toEqual([1200]);
    expect(call.exchanges.map((e) => [e.attempt, e.response?.status])).toEqual([
      [1, 429],
      [2, 200],
    ]);
    expect(call.error).toBeNull();
    expect(server.received).toHaveLength(2);
  });

  it('gives up with PROVIDER_UNAVAILABLE (retryable) after N recorded 500s, backing off exponentially', async () => {
    await using server = await startRecordedProvider();
    server.queue(...Array.from({ length: 4 }, () => recorded('openai-500')));
    const calls: unknown[] = [];
    const { agent: a, delays } = agent(server.openaiBaseURL, {
      retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000 },
      onCall: (c) => calls.push(c),
    });
    const err = await a.decide(inputFor(testTask(), 'Round 1 of 100.')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect((err as AgentError).code).toBe('PROVIDER_UNAVAILABLE');
    expect((err as AgentError).retryable).toBe(true);
    expect((err as AgentError).message).toMatch(/after 4 attempts \(last: HTTP 500: The server had an error/);
    expect(delays).toEqual([75, 150, 300]);
    const call = a.lastCall!;
    expect(call.retries.map((r) => r.status)).toEqual([500, 500, 500]);
    expect(call.exchanges).toHaveLength(4);
    expect(call.error?.code).toBe('PROVIDER_UNAVAILABLE');
    expect(call.usage).toEqual({ input: 0, output: 0, cached: 0, cacheWrite: 0 });
    expect(calls).toHaveLength(1);
  });

  it('does not retry a recorded 401: PROVIDER_REJECTED, not retryable', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('openai-401'));
    const { agent: a, delays } = agent(server.openaiBaseURL);
    const err = (await a
      .decide(inputFor(testTask(), 'Round 1 of 100.'))
      .catch((e: unknown) => e)) as AgentError;
    expect(err.code).toBe('PROVIDER_REJECTED');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('HTTP 401: Incorrect API key provided');
    expect(delays).toEqual([]);
    expect(server.received).toHaveLength(1);
  });

  it('retries a request that timed out, then reads the recorded answer', async () => {
    await using server = await startRecordedProvider();
    server.queue({ status: 200, body: null, hang: true }, recorded('openai-tool-call'));
    const { agent: a } = agent(server.openaiBaseURL, { requestTimeoutMs: 300 });
    const raw = await a.decide(inputFor(testTask(), 'Round 1 of 100.'));
    expect(parseDecision(raw).kind).toBe('act');
    expect(a.lastCall!.retries).toEqual([
      { attempt: 1, code: 'TIMEOUT', message: expect.any(String), delayMs: 750 },
    ]);
    expect(a.lastCall!.exchanges[0]!.response).toBeNull();
  });

  it('sends the GUI screenshot as an image_url data URL and maps computer-use calls', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('openai-gui-click'));
    const { agent: a } = agent(server.openaiBaseURL);
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
    const raw = await a.decide(
      inputFor(testTask('gui'), 'Round 1 of 200.', [], {
        images: [{ name: 'screenshot', mediaType: 'image/png', data: png }],
      }),
    );
    expect(raw).toEqual({
      actions: [
        { type: 'click', x: 412, y: 36 },
        { type: 'type', text: '120' },
      ],
    });
    const body = server.received[0]!.body as {
      messages: { role: string; content: unknown }[];
      tools: { function: { name: string } }[];
    };
    const user = body.messages[1]!.content as { type: string; image_url?: { url: string } }[];
    expect(user.find((p) => p.type === 'image_url')?.image_url?.url).toBe(
      `data:image/png;base64,${png.toString('base64')}`,
    );
    expect(body.tools.map((t) => t.function.name)).toEqual([
      'click',
      'double_click',
      'move',
      'drag',
      'scroll',
      'key',
      'type',
      'wait',
      'done',
      'fail',
    ]);
  });

  it('rebuilds history as assistant tool calls and tool results, last N rounds only', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('openai-done'));
    const { agent: a } = agent(server.openaiBaseURL, { historyWindow: 2 });
    const history = [1, 2, 3].map((r) => shellRound(r, `echo ${r}`, `Round ${r} of 100.`));
    const raw = await a.decide(inputFor(testTask(), 'Round 4 of 100.\n$ echo 3\nok', history));
    expect(raw).toEqual({ done: true, message: 'plate.dxf written and checked' });
    const body = server.received[0]!.body as {
      messages: { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string }[];
    };
    expect(body.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
      'user',
    ]);
    expect(String(body.messages[1]!.content)).toContain('[Rounds 1-1 are not shown.]');
    expect(body.messages[2]!.tool_calls).toEqual([
      { id: 'call_r2_1', type: 'function', function: { name: 'shell', arguments: '{"command":"echo 2"}' } },
    ]);
    expect(body.messages[3]!.tool_call_id).toBe('call_r2_1');
    expect(String(body.messages[7]!.content)).toContain('Round 4 of 100.');
  });

  it('accounts tokens and cost per call and per episode; never records the key', async () => {
    await using server = await startRecordedProvider();
    server.queue({ ...recorded('openai-tool-call'), delayMs: 250 }, recorded('openai-done'));
    const { agent: a } = agent(server.openaiBaseURL, {
      prices: { openai: { 'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 } } },
    });
    await a.decide(inputFor(testTask(), 'Round 1 of 100.'));
    const first = a.lastCall!;
    expect(first).toMatchObject({ provider: 'openai', model: 'gpt-4o', round: 1, stopReason: 'tool_calls' });
    expect(first.usage).toEqual({ input: 1512, output: 31, cached: 1280, cacheWrite: 0 });
    expect(first.costUsd).toBeCloseTo((232 * 2.5 + 1280 * 1.25 + 31 * 10) / 1e6, 12);
    // The server answered 250 ms after the request: the call's latency includes that wait.
    expect(first.latencyMs).toBeGreaterThanOrEqual(250);
    expect(first.latencyMs).toBeLessThan(10_000);
    await a.decide(inputFor(testTask(), 'Round 2 of 100.', [shellRound(1, 'ls', 'Round 1 of 100.')]));
    const t = a.totals;
    expect(t.calls).toBe(2);
    expect(t.usage).toEqual({ input: 1512 + 3120, output: 31 + 21, cached: 1280 + 2944, cacheWrite: 0 });
    expect(t.costUsd).toBeCloseTo(first.costUsd! + a.lastCall!.costUsd!, 12);

    const recordedText = JSON.stringify([first, a.lastCall]);
    expect(recordedText).not.toContain(KEY);
    expect(first.exchanges[0]!.request.headers.authorization).toBe('[REDACTED]');
    expect(first.exchanges[0]!.response?.headers['x-request-id']).toBe(
      'req_6b1f0c2e9d4a4f6e8b3c2a1d0e9f8a7b',
    );
  });

  it('reports no cost for a model without a price (a local model)', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('openai-tool-call'));
    const { agent: a } = agent(server.openaiBaseURL, { model: 'qwen2.5-coder:32b', apiKey: 'none' });
    await a.decide(inputFor(testTask(), 'Round 1 of 100.'));
    expect(a.lastCall!.costUsd).toBeNull();
    expect(a.totals.costUsd).toBeNull();
    expect(server.received[0]!.headers.authorization).toBe('Bearer none');
  });

  it('stops retrying when the episode is aborted during backoff', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('openai-500'), recorded('openai-tool-call'));
    const ac = new AbortController();
    const a = new LlmAgent({
      provider: 'openai',
      model: 'gpt-4o',
      apiKey: KEY,
      baseURL: server.openaiBaseURL,
      onRetry: () => ac.abort(new Error('episode cancelled')),
    });
    const err = await a
      .decide(inputFor(testTask(), 'Round 1 of 100.', [], { signal: ac.signal }))
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe('episode cancelled');
    expect(server.received).toHaveLength(1);
    expect(a.lastCall!.error).toEqual({ code: 'ABORTED', message: 'episode cancelled' });
  });
});
