/**
 * The configured provider key never enters the episode log. `redactDraft` on the event shapes the
 * runner emits, then a real episode (Docker, a nats-server of its own) whose model, played by a
 * recorded provider, echoes the key in its tool call and has the sandbox print it in clear, in
 * base64 and split across the command: no stored message or blob may hold the key in any form.
 * Before: the key was stored in clear in `agent.decided` (raw and decision), `action.started`,
 * `action.executed` (command and stdout) and the next observation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmAgent } from '../../actors/agents/index.js';
import { redactDraft } from '../../actors/episode/redact-event.js';
import type { EventDraft } from '../../streams/index.js';
import { episodeKit, starter, type EpisodeKit } from '../helpers/episode.js';
import { recorded, startRecordedProvider, type RecordedProvider } from './recorded-provider.js';

const KEY = 'sk-proj-REDACTTEST_0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJ';
const SECRETS = [KEY] as const;

/** Independent of the code under test: fragments any encoding of KEY would contain. */
function forms(key: string): string[] {
  const out = [key, Buffer.from(key).toString('hex'), Buffer.from(key).toString('hex').toUpperCase()];
  for (const prefix of ['', 'a', 'ab']) {
    const b64 = Buffer.from(prefix + key).toString('base64');
    // Characters 4 .. length-4 depend on the key's bytes alone, whatever surrounds it.
    const core = b64.slice(4, -4);
    out.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return out;
}

function leaks(text: string, key = KEY): string[] {
  return forms(key).filter((f) => text.includes(f));
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    Object.values(v).forEach(deepFreeze);
    Object.freeze(v);
  }
  return v;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const shell = (command: string) => ({ type: 'shell' as const, command });

describe('redactDraft', () => {
  it('redacts the key from every field of the events the runner emits, in each encoded form', () => {
    const cmd = `echo ${KEY} && curl -H "Authorization: Bearer ${KEY}" "https://x.invalid/?k=${encodeURIComponent(KEY)}"`;
    const drafts: EventDraft[] = [
      {
        type: 'agent.decided',
        round: 1,
        raw: {
          actions: [shell(cmd)],
          tool_calls: [{ name: 'shell', arguments: `{"command":"echo ${KEY}"}` }],
          text: `my key is ${KEY}`,
        },
        decision: { kind: 'act', actions: [shell(cmd)] },
        latencyMs: 12,
        stateDigest: 'ab'.repeat(32),
      },
      { type: 'action.started', round: 1, index: 0, action: shell(cmd) },
      {
        type: 'action.executed',
        round: 1,
        index: 0,
        action: shell(cmd),
        result: {
          stdout: `${KEY}\n${b64(`${KEY}\n`)}\n${b64(`x=${KEY}`)}\n${b64(`yz=${KEY}`)}\n${Buffer.from(KEY).toString('hex')}\n`,
          stderr: `curl: ${encodeURIComponent(`key=${KEY}&`)}`,
          exitCode: 0,
          durationMs: 5,
          truncated: false,
          timedOut: false,
        },
      },
      { type: 'observation.recorded', round: 2, text: `Round 2 of 100.\n$ echo ${KEY}\nstdout:\n${KEY}\n` },
      {
        type: 'agent.retried',
        round: 2,
        attempt: 1,
        status: 401,
        message: `invalid key ${KEY.slice(0, 20)}… (${KEY})`,
        delayMs: 1000,
      },
      {
        type: 'infra.failed',
        error: { code: 'PROVIDER_REJECTED', message: `bad key ${KEY}` },
        during: 'deciding',
      },
    ] as EventDraft[];
    for (const d of drafts) {
      const before = structuredClone(d);
      const out = redactDraft(deepFreeze(d), SECRETS);
      expect(d, d.type).toEqual(before); // never mutated (and frozen: it could not be)
      const text = JSON.stringify(out);
      expect(leaks(text), `${d.type}: ${text}`).toEqual([]);
      expect(text, d.type).toContain('[REDACTED]');
    }
    const ex = redactDraft(drafts[2]!, SECRETS) as Extract<EventDraft, { type: 'action.executed' }>;
    expect(ex.result.stdout.split('\n').slice(0, 5)).toEqual(
      Array(5).fill(expect.stringContaining('[REDACTED]')),
    );
    expect(ex.result.exitCode).toBe(0);
    expect(ex.round).toBe(1);
  });

  it('also catches key-shaped strings and keys of objects; shares what it does not change', () => {
    const d = {
      type: 'observation.recorded',
      round: 1,
      text: 'other key sk-ant-api03-abcdefghijklmnopqrstuv and Bearer abc.def-ghi',
      images: [{ name: `shot-${KEY}`, digest: 'cd'.repeat(32) }],
    } as unknown as EventDraft;
    const out = redactDraft(d, SECRETS) as unknown as {
      text: string;
      images: { name: string; digest: string }[];
    };
    expect(out.text).toBe('other key [REDACTED] and [REDACTED]');
    expect(out.images[0]).toEqual({ name: 'shot-[REDACTED]', digest: 'cd'.repeat(32) });
    const clean: EventDraft = { type: 'observation.recorded', round: 1, text: 'nothing to see' };
    expect(redactDraft(clean, SECRETS)).toBe(clean);
    const partly = { type: 'action.started', round: 1, index: 0, action: shell(KEY) } as EventDraft;
    const red = redactDraft(partly, SECRETS);
    expect(red).not.toBe(partly);
    expect(redactDraft(partly, [])).toBe(partly); // no secrets: not even walked
    // A "secret" shorter than 8 characters is not redacted: it would wreck every output.
    expect(redactDraft({ ...clean, text: 'see' }, ['see'])).toEqual({ ...clean, text: 'see' });
  });

  it('is cheap: a 64 KiB output per event', () => {
    const stdout = `${'lorem ipsum dolor sit amet '.repeat(2400)}\n${KEY}\n`;
    const draft = {
      type: 'action.executed',
      round: 1,
      index: 0,
      action: shell('cat big.txt'),
      result: { stdout, stderr: '', exitCode: 0, durationMs: 1, truncated: false, timedOut: false },
    } as EventDraft;
    redactDraft(draft, SECRETS);
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) redactDraft(draft, SECRETS);
    const perEvent = (performance.now() - t0) / 200;
    console.log(`redactDraft: ${perEvent.toFixed(3)} ms per event with ${stdout.length} bytes of stdout`);
    expect(perEvent).toBeLessThan(5);
  });
});

// Needs the runner to call redactDraft in its emit (see actors/episode/redact-event.ts).
describe('an episode whose model and sandbox echo the provider key', () => {
  let kit: EpisodeKit;
  let provider: RecordedProvider;
  beforeAll(async () => {
    kit = await episodeKit();
    provider = await startRecordedProvider();
  });
  afterAll(async () => {
    await provider?.close();
    await kit?.close();
  });

  it('stores no occurrence of the key in any event or blob, in clear or encoded', async () => {
    const [a, b] = [KEY.slice(0, 12), KEY.slice(12)];
    // The model echoes the key, and has the sandbox print it whole from parts it never writes whole.
    const command = [
      `echo "the key is ${KEY}"`,
      `printf '%s%s\\n' '${a}' '${b}'`,
      `printf '%s%s' '${a}' '${b}' | base64 -w0; echo`,
      `printf 'k=%s%s' '${a}' '${b}' | base64 -w0; echo`,
    ].join('; ');
    const call = recorded('openai-tool-call');
    const message = (call.body as { choices: { message: Record<string, unknown> }[] }).choices[0]!.message;
    message.content = `Using ${KEY} as asked.`;
    (message.tool_calls as { function: { arguments: string } }[])[0]!.function.arguments = JSON.stringify({
      command,
    });
    provider.queue(call, recorded('openai-done'));
    const agent = new LlmAgent({
      provider: 'openai',
      model: 'gpt-4o',
      apiKey: KEY,
      baseURL: provider.openaiBaseURL,
    });
    const lt = await starter('openscad-plate');

    const result = await kit.run(lt, agent);
    expect(result.status).toBe('done');
    expect(provider.received[0]!.headers.authorization).toBe(`Bearer ${KEY}`); // the key was in use

    const raw = await kit.log.readRaw(result.episodeId);
    const stored = raw.map((r) => Buffer.from(r.data).toString('utf8'));
    for (const [i, s] of stored.entries())
      expect(leaks(s), `stored event ${i + 1}: ${s.slice(0, 300)}`).toEqual([]);
    const events = await kit.log.read(result.episodeId);
    const executed = events.find((e) => e.type === 'action.executed');
    expect(executed?.type === 'action.executed' && executed.result.exitCode).toBe(0);
    // The sandbox did print it, four times: each is redacted.
    const out = executed?.type === 'action.executed' ? executed.result.stdout : '';
    expect(out.split('\n').filter((l) => l.includes('[REDACTED]'))).toHaveLength(4);

    // Every blob the events name (exchanges, large outputs) holds no form of the key either.
    const digests = new Set(stored.join('\n').match(/\b[0-9a-f]{64}\b/g) ?? []);
    let blobs = 0;
    for (const d of digests) {
      const data = await kit.blobs.get(d).catch(() => null);
      if (!data) continue;
      blobs++;
      expect(leaks(data.toString('utf8')), `blob ${d}`).toEqual([]);
    }
    expect(blobs).toBeGreaterThanOrEqual(2); // the two calls' exchanges at least
  });
});
