import { describe, expect, it } from 'vitest';
import { LlmAgent } from '../../actors/agents/index.js';
import { parseDecision } from '../../machines/decision.js';
import {
  fakeSleep,
  inputFor,
  recorded,
  shellRound,
  startRecordedProvider,
  testTask,
} from './recorded-provider.js';

const KEY = 'sk-ant-api03-TESTKEY_0123456789abcdefghijklmnopqrstuvwxyz-AAAA';

function agent(baseURL: string, extra: Partial<ConstructorParameters<typeof LlmAgent>[0]> = {}) {
  const s = fakeSleep();
  const a = new LlmAgent({
    provider: 'anthropic',
    model: 'claude-haiku-4-5-20251001',
    apiKey: KEY,
    baseURL,
    sleep: s.sleep,
    random: () => 0,
    ...extra,
  });
  return { agent: a, delays: s.delays };
}

type Block = { type: string; [k: string]: unknown };
type Body = {
  model: string;
  max_tokens: number;
  system: string;
  messages: { role: string; content: Block[] }[];
  tools: { name: string }[];
};

describe('Anthropic agent against recorded Messages responses', () => {
  it('turns a recorded tool_use into an action and accounts cache tokens and cost', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('anthropic-tool-use'));
    const { agent: a } = agent(server.anthropicBaseURL);
    const raw = await a.decide(inputFor(testTask(), 'Round 1 of 100. Workspace contents:\n(empty)'));
    expect(raw).toEqual({
      actions: [{ type: 'shell', command: 'python3 -c "import ezdxf; print(ezdxf.__version__)"' }],
    });
    expect(parseDecision(raw).kind).toBe('act');

    const req = server.received[0]!;
    expect(req.url).toBe('/v1/messages');
    const body = req.body as Body;
    expect(body.model).toBe('claude-haiku-4-5-20251001');
    expect(body.max_tokens).toBe(8192);
    expect(body.tools.map((t) => t.name)).toEqual(['shell', 'view_image', 'done', 'fail']);
    expect(body.messages[0]!.content[0]).toMatchObject({
      type: 'text',
      cache_control: { type: 'ephemeral' },
    });

    const call = a.lastCall!;
    expect(call.usage).toEqual({ input: 212 + 1433, output: 87, cached: 0, cacheWrite: 1433 });
    // claude-haiku-4-5 by prefix: $1 in, $1.25 cache write, $5 out per million.
    expect(call.costUsd).toBeCloseTo((212 * 1 + 1433 * 1.25 + 87 * 5) / 1e6, 12);
    expect(call.stopReason).toBe('tool_use');
  });

  it('never records the key, whichever header carried it', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('anthropic-tool-use'));
    const { agent: a } = agent(server.anthropicBaseURL);
    await a.decide(inputFor(testTask(), 'Round 1 of 100.'));
    const sent = server.received[0]!.headers;
    expect([sent['x-api-key'], sent.authorization].some((v) => String(v).includes(KEY))).toBe(true);
    expect(JSON.stringify(a.lastCall)).not.toContain(KEY);
    expect(JSON.stringify(a.lastCall)).not.toContain('sk-ant-');
  });

  it('maps a recorded refusal (stop_reason "refusal") to fail("refused: …")', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('anthropic-refusal'));
    const { agent: a } = agent(server.anthropicBaseURL);
    const raw = await a.decide(inputFor(testTask(), 'Round 1 of 100.'));
    expect(raw).toEqual({
      fail: 'refused: This request was declined because it could enable malware development.',
    });
  });

  it('retries a recorded 529 overloaded, then reads the recorded answer', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('anthropic-529'), recorded('anthropic-529'), recorded('anthropic-done'));
    const { agent: a, delays } = agent(server.anthropicBaseURL);
    const raw = await a.decide(
      inputFor(testTask(), 'Round 5 of 100.', [shellRound(4, 'ls', 'Round 4 of 100.')]),
    );
    expect(raw).toEqual({
      done: true,
      message: 'plate.dxf written; layers and dimensions checked with ezdxf.',
    });
    expect(a.lastCall!.retries).toEqual([
      { attempt: 1, status: 529, message: 'HTTP 529: Overloaded', delayMs: 500 },
      { attempt: 2, status: 529, message: 'HTTP 529: Overloaded', delayMs: 1000 },
    ]);
    expect(delays).toEqual([500, 1000]);
    expect(a.lastCall!.usage).toEqual({ input: 96 + 402 + 1433, output: 41, cached: 1433, cacheWrite: 402 });
  });

  it('sends the image a CLI agent asked to view as a base64 image block, with tool results first', async () => {
    await using server = await startRecordedProvider();
    server.queue(recorded('anthropic-done'));
    const { agent: a } = agent(server.anthropicBaseURL);
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000020000000208060000', 'hex');
    const viewed = {
      round: 1,
      observation: 'Round 1 of 100.',
      decision: {
        kind: 'act' as const,
        actions: [
          {
            type: 'shell' as const,
            command: 'ls -l -- \'out/plate.png\'  # engiloop:view_image "out/plate.png"',
          },
        ],
      },
      results: [],
    };
    await a.decide(
      inputFor(testTask(), 'Round 2 of 100.\n$ ls -l out/plate.png', [viewed], {
        images: [{ name: 'out/plate.png', mediaType: 'image/png', data: png }],
      }),
    );
    const body = server.received[0]!.body as Body;
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[1]!.content).toEqual([
      { type: 'tool_use', id: 'call_r1_1', name: 'view_image', input: { path: 'out/plate.png' } },
    ]);
    const last = body.messages[2]!.content;
    expect(last[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_r1_1' });
    expect(last.find((b) => b.type === 'image')).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') },
      cache_control: { type: 'ephemeral' },
    });
  });
});
