import { describe, expect, it } from 'vitest';
import { replyToDecision } from '../../actors/agents/llm/decision.js';
import { backoffMs, classify, DEFAULT_RETRY } from '../../actors/agents/llm/retry.js';
import { redactHeaders, redactText, REDACTED } from '../../actors/agents/llm/redact.js';
import {
  actionToCall,
  callToAction,
  toolSpecs,
  viewImageAction,
  viewImageRequest,
} from '../../actors/agents/llm/tools.js';
import type { Reply } from '../../actors/agents/llm/types.js';
import { parseDecision } from '../../machines/decision.js';
import type { Action } from '../../tasks/index.js';

const usage = { input: 0, output: 0, cached: 0, cacheWrite: 0 };
const reply = (over: Partial<Reply>): Reply => ({
  calls: [],
  text: '',
  refusal: null,
  stopReason: 'tool_calls',
  usage,
  ...over,
});

describe('tools', () => {
  it('offers object schemas without $schema, closed to unknown keys', () => {
    for (const iface of ['cli', 'gui'] as const)
      for (const t of toolSpecs(iface)) {
        expect(t.parameters).not.toHaveProperty('$schema');
        expect(t.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      }
  });

  it('round-trips every action through its tool call', () => {
    const cli: Action[] = [
      { type: 'shell', command: 'ls -la', sandbox: 'main', timeout_sec: 30 },
      viewImageAction("out/it's a plot.png", 'viz'),
    ];
    const gui: Action[] = [
      { type: 'click', x: 1, y: 2, button: 'right' },
      { type: 'double_click', x: 3, y: 4 },
      { type: 'move', x: 5, y: 6 },
      { type: 'drag', from: [1, 2], to: [3, 4] },
      { type: 'scroll', x: 1, y: 1, dx: 0, dy: 3 },
      { type: 'key', keys: 'ctrl+s' },
      { type: 'type', text: 'hello' },
      { type: 'wait', seconds: 2 },
    ];
    for (const [iface, actions] of [
      ['cli', cli],
      ['gui', gui],
    ] as const)
      for (const a of actions) {
        const c = actionToCall(a, 'id');
        expect(callToAction(iface, c.name, c.args)).toEqual({ ok: true, action: a });
      }
    expect(viewImageRequest(cli[1]!)).toEqual({ path: "out/it's a plot.png", sandbox: 'viz' });
    expect(viewImageRequest({ type: 'shell', command: 'ls' })).toBeNull();
  });

  it('quotes the viewed path for the shell', () => {
    const a = viewImageAction("a'b.png") as { command: string };
    expect(a.command.startsWith(`ls -l -- 'a'\\''b.png'`)).toBe(true);
  });
});

describe('reply → raw decision', () => {
  it('rejects unknown tools, bad arguments, interface mismatches, done mixed with actions and text alone', () => {
    const cases: [Reply, 'cli' | 'gui', RegExp][] = [
      [
        reply({ calls: [{ name: 'rm_rf', args: {} }] }),
        'cli',
        /tool call 1 \(rm_rf\): unknown tool "rm_rf" \(tools: shell, view_image, done, fail\)/,
      ],
      [
        reply({ calls: [{ name: 'shell', args: { cmd: 'ls' } }] }),
        'cli',
        /tool call 1 \(shell\): arguments do not match the schema: command:/,
      ],
      [reply({ calls: [{ name: 'click', args: { x: 1, y: 2 } }] }), 'cli', /unknown tool "click"/],
      [
        reply({
          calls: [
            { name: 'shell', args: { command: 'ls' } },
            { name: 'done', args: {} },
          ],
        }),
        'cli',
        /done and fail must be the only tool call/,
      ],
      [
        reply({ text: 'I will now write the file.', stopReason: 'stop' }),
        'cli',
        /^no tool call: answer with at least one tool call/,
      ],
      [
        reply({ text: 'Let me', stopReason: 'max_tokens' }),
        'gui',
        /^no tool call \(the answer was cut at the output token limit\)/,
      ],
    ];
    for (const [r, iface, reason] of cases) {
      const raw = replyToDecision(r, iface) as { invalid: string };
      expect(raw.invalid).toMatch(reason);
      expect(parseDecision(raw).kind).toBe('invalid');
    }
  });

  it('passes done and fail through', () => {
    expect(replyToDecision(reply({ calls: [{ name: 'done', args: {} }] }), 'cli')).toEqual({ done: true });
    expect(
      replyToDecision(reply({ calls: [{ name: 'fail', args: { reason: 'no solver' } }] }), 'gui'),
    ).toEqual({ fail: 'no solver' });
  });
});

describe('retry policy', () => {
  it('backs off exponentially with equal jitter, capped, at least retry-after', () => {
    const p = { ...DEFAULT_RETRY, baseDelayMs: 1000, maxDelayMs: 8000 };
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, p, () => 0))).toEqual([500, 1000, 2000, 4000, 4000]);
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, p, () => 1))).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(backoffMs(1, p, () => 0, 3000)).toBe(3000);
    expect(backoffMs(1, p, () => 0, 60_000)).toBe(8000);
  });

  it('retries 408, 409, 429, 5xx, network errors; not other 4xx', () => {
    const ex = (status: number | null) => ({
      attempt: 1,
      request: { method: 'POST', url: '', headers: {}, body: {}, bodySha256: '' },
      response:
        status === null
          ? null
          : { status, headers: { 'retry-after': '2' }, body: { error: { message: 'x' } } },
      error: status === null ? { code: 'ECONNRESET', message: 'socket hang up' } : null,
      latencyMs: 1,
    });
    expect([408, 409, 429, 500, 503, 529].map((s) => classify(ex(s)).retryable)).toEqual(Array(6).fill(true));
    expect([400, 401, 403, 404, 422].map((s) => classify(ex(s)).retryable)).toEqual(Array(5).fill(false));
    expect(classify(ex(null))).toEqual({ retryable: true, code: 'ECONNRESET', message: 'socket hang up' });
    expect(classify(ex(429)).retryAfterMs).toBe(2000);
  });
});

describe('redaction', () => {
  it('removes credential headers, known secrets and key-shaped strings; keeps rate-limit headers', () => {
    const h = redactHeaders(
      {
        Authorization: 'Bearer abc',
        'x-api-key': 'sk-ant-xyz',
        'anthropic-ratelimit-tokens-remaining': '1000',
        'content-length': '12',
        'x-note': 'my secret-value-123 here',
      },
      ['secret-value-123'],
    );
    expect(h).toEqual({
      authorization: REDACTED,
      'x-api-key': REDACTED,
      'anthropic-ratelimit-tokens-remaining': '1000',
      'x-note': `my ${REDACTED} here`,
    });
    expect(redactText('key sk-proj-abcdefghijklmnopqrstuvwxyz0123 end', [])).toBe(`key ${REDACTED} end`);
  });
});
