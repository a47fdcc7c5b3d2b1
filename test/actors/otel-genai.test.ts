/**
 * GenAI semantic-convention spans of real episodes (real nats-server, Docker, openscad and the STL
 * verifiers), exported by the real SDK that `initTelemetry` starts from OTEL_* variables, over
 * OTLP/HTTP (JSON) to a receiver this test runs on a random port: names, parentage and attributes
 * of `invoke_agent`, `chat {model}` (an LLM agent answered by recorded provider responses),
 * `execute_tool {action}`, and `gen_ai.evaluation.result` events. The scripted episode runs
 * without content capture, the LLM one with it (images only as object-store references).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../actors/agents/index.js';
import {
  captureContent,
  genAiLatest,
  initTelemetry,
  recordFailureModes,
  startSpan,
} from '../../actors/telemetry.js';
import type { EpisodeEvent } from '../../streams/index.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import {
  recorded,
  startRecordedProvider,
  type RecordedProvider,
  type RecordedResponse,
} from '../agents/recorded-provider.js';
import { episodeKit, starter, type EpisodeKit } from '../helpers/episode.js';

/** A span as the receiver decoded it from OTLP JSON. */
interface Got {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status?: { code?: number };
}

type AnyValue = Record<string, unknown>;
type KeyValue = { key: string; value: AnyValue };
/** A span as OTLP JSON carries it. */
interface WireSpan extends Omit<Got, 'start' | 'end' | 'attributes' | 'events'> {
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: KeyValue[];
  events?: { name: string; attributes?: KeyValue[] }[];
}
function value(v: AnyValue): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('boolValue' in v) return v.boolValue;
  if ('arrayValue' in v) return ((v.arrayValue as { values?: AnyValue[] }).values ?? []).map(value);
  return undefined;
}
const attrs = (kv: KeyValue[] = []) => Object.fromEntries(kv.map((a) => [a.key, value(a.value)]));

/** An OTLP/HTTP receiver: accepts POST /v1/traces (JSON) and keeps the spans and the raw bodies. */
async function startReceiver(): Promise<{
  url: string;
  spans: Got[];
  raw: string[];
  types: string[];
  server: Server;
}> {
  const spans: Got[] = [];
  const raw: string[] = [];
  const types: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && req.url === '/v1/traces') {
        types.push(req.headers['content-type'] ?? '');
        raw.push(text);
        const body = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: WireSpan[] }[] }[] };
        for (const rs of body.resourceSpans)
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              spans.push({
                ...s,
                start: BigInt(s.startTimeUnixNano),
                end: BigInt(s.endTimeUnixNano),
                attributes: attrs(s.attributes),
                events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
              });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, raw, types, server };
}

const KEY = 'sk-test-otel-never-exported';
const DOT_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The recorded tool-call response with its call replaced by `name(args)`. */
function toolCall(name: string, args: Record<string, unknown>, n: number): RecordedResponse {
  const r = structuredClone(recorded('openai-tool-call')) as RecordedResponse & {
    body: { choices: { message: { tool_calls: { id: string; function: object }[] } }[] };
  };
  const call = r.body.choices[0]!.message.tool_calls[0]!;
  call.id = `call_otel_${n}`;
  call.function = { name, arguments: JSON.stringify(args) };
  return r;
}

const ENV = {
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
  OTEL_BSP_SCHEDULE_DELAY: '200',
  // A comma-separated list, as the conventions say; other entries are left alone.
  OTEL_SEMCONV_STABILITY_OPT_IN: 'http, gen_ai_latest_experimental',
};
const saved = { ...process.env };

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let kit: EpisodeKit;
let provider: RecordedProvider;
let plate: LoadedTask;
const scripted = { id: '', events: [] as EpisodeEvent[] };
const llm = { id: '', events: [] as EpisodeEvent[] };
const multi = { id: '', events: [] as EpisodeEvent[] };

beforeAll(async () => {
  receiver = await startReceiver();
  Object.assign(process.env, ENV, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
  const shutdown = await initTelemetry();
  kit = await episodeKit();
  provider = await startRecordedProvider();
  plate = await starter('openscad-plate');

  const a = await kit.run(plate, createAgent('scripted', plate));
  expect(a.status).toBe('done');
  Object.assign(scripted, { id: a.episodeId, events: await kit.log.read(a.episodeId) });
  const print = await loadTask(join(import.meta.dirname, '../fixtures/tasks/handoff-print'));
  const m = await kit.run(print, createAgent('scripted', print));
  expect(m.status).toBe('done');
  Object.assign(multi, { id: m.episodeId, events: await kit.log.read(m.episodeId) });

  process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true';
  const halves = `${DOT_PNG.slice(0, 40)} ${DOT_PNG.slice(40)}`;
  const [scad, stl] = plate.task.reference.map((s) => (Array.isArray(s) ? s[0]! : s));
  if (scad?.type !== 'shell' || stl?.type !== 'shell') throw new Error('reference changed');
  provider.queue(
    recorded('openai-429'),
    toolCall('shell', { command: scad.command }, 1),
    // The PNG's base64 in two halves: were the image inlined, the whole string would show up.
    toolCall('shell', { command: `${stl.command} && printf %s%s ${halves} | base64 -d > dot.png` }, 2),
    toolCall('view_image', { path: 'dot.png' }, 3),
    toolCall('done', { message: 'part.stl exported' }, 4),
  );
  const agent = createAgent('openai:gpt-4o', plate, {
    env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: provider.openaiBaseURL },
    llm: { retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 } },
  });
  const b = await kit.run(plate, agent);
  expect(b.status).toBe('done');
  Object.assign(llm, { id: b.episodeId, events: await kit.log.read(b.episodeId) });

  const probe = startSpan('probe', {});
  recordFailureModes(probe, ['loop.repeated_action', 'deliverable.unverified', 'loop.repeated_action']);
  probe.end();
  await shutdown(); // flushes every span to the receiver
}, 240_000);

afterAll(async () => {
  process.env = saved;
  await provider?.close();
  await kit?.close();
  await new Promise((r) => receiver?.server.close(r));
});

const byId = () => new Map(receiver.spans.map((s) => [s.spanId, s]));
const parentOf = (s: Got) => byId().get(s.parentSpanId ?? '');
/** The spans of the episode whose `invoke_agent` span has conversation id `id`. */
function trace(id: string) {
  const root = receiver.spans.find(
    (s) => s.name.startsWith('invoke_agent') && s.attributes['gen_ai.conversation.id'] === id,
  )!;
  expect(root).toBeDefined();
  return { root, spans: receiver.spans.filter((s) => s.traceId === root.traceId) };
}
const of = <T extends EpisodeEvent['type']>(es: EpisodeEvent[], t: T) =>
  es.filter((e): e is Extract<EpisodeEvent, { type: T }> => e.type === t);

it('the SDK exported every span as OTLP/HTTP JSON to the receiver', () => {
  expect(receiver.types.length).toBeGreaterThan(0);
  for (const t of receiver.types) expect(t).toMatch(/^application\/json/);
  expect(new Set(receiver.spans.map((s) => s.spanId)).size).toBe(receiver.spans.length);
});

it('the opt-in is a comma-separated list; content capture is its own switch', () => {
  expect(genAiLatest({})).toBe(false);
  expect(genAiLatest({ OTEL_SEMCONV_STABILITY_OPT_IN: 'http' })).toBe(false);
  expect(genAiLatest({ OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental_x' })).toBe(false);
  expect(genAiLatest({ OTEL_SEMCONV_STABILITY_OPT_IN: 'http,gen_ai_latest_experimental' })).toBe(true);
  expect(captureContent({})).toBe(false);
  expect(captureContent({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE' })).toBe(true);
});

describe('a scripted episode (no content capture)', () => {
  it('is an invoke_agent span: operation, agent, provider, the episode id as conversation id', () => {
    const { root } = trace(scripted.id);
    expect(root.name).toBe('invoke_agent scripted');
    expect(root.parentSpanId ?? '').toBe('');
    expect(root.kind).toBe(1); // INTERNAL: the agent runs in this process
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'scripted',
      'gen_ai.provider.name': 'engiloop',
      'engiloop.task': 'openscad-plate',
      'engiloop.status': 'done',
    });
    // The earlier shapes are not emitted beside the new ones.
    expect(receiver.spans.filter((s) => s.name === 'episode' || s.name === 'action')).toEqual([]);
  });

  it('runs each action as an execute_tool span under its round, with round, sandbox and exit code', () => {
    const { root, spans } = trace(scripted.id);
    const tools = spans.filter((s) => s.name.startsWith('execute_tool '));
    expect(tools.map((s) => s.name)).toEqual(['execute_tool shell', 'execute_tool shell']);
    const executed = of(scripted.events, 'action.executed');
    tools.forEach((s, i) => {
      const round = parentOf(s)!;
      expect(round.name).toBe('round');
      expect(parentOf(round)).toBe(root);
      expect(s.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'shell',
        'engiloop.round': executed[i]!.round,
        'engiloop.sandbox': 'main',
        'engiloop.exit_code': 0,
      });
      expect(round.attributes['engiloop.round']).toBe(executed[i]!.round);
      expect(s.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
      expect(s.start >= round.start && s.end <= round.end).toBe(true);
    });
    expect(spans.filter((s) => s.name.startsWith('chat '))).toEqual([]);
  });

  it('puts a gen_ai.evaluation.result event on the episode span per verdict and for the task score', () => {
    const { root } = trace(scripted.id);
    const evals = root.events.filter((e) => e.name === 'gen_ai.evaluation.result');
    const done = of(scripted.events, 'verification.completed')[0]!;
    expect(evals.map((e) => e.attributes['gen_ai.evaluation.name'])).toEqual([
      ...plate.task.criteria.map((c) => c.id),
      'task_score',
    ]);
    done.verdicts.forEach((v, i) =>
      expect(evals[i]!.attributes).toMatchObject({
        'gen_ai.evaluation.score.value': v.score,
        'gen_ai.evaluation.score.label': 'pass',
        'gen_ai.evaluation.explanation': v.reason,
        'engiloop.verifier': v.verifier,
      }),
    );
    expect(
      evals.find((e) => e.attributes['gen_ai.evaluation.name'] === 'bbox')!.attributes['engiloop.expected'],
    ).toBe('[80,50,6]');
    expect(evals.at(-1)!.attributes).toMatchObject({
      'gen_ai.evaluation.score.value': 1,
      'gen_ai.evaluation.score.label': 'pass',
    });
  });
});

describe('a two-app episode (hand-off and stages)', () => {
  it('runs the hand-off as execute_tool handoff with its sandboxes and the digest it moved', () => {
    const { spans } = trace(multi.id);
    const [h] = of(multi.events, 'artifact.handed_off');
    const span = spans.find((s) => s.name === 'execute_tool handoff')!;
    expect(parentOf(span)!.name).toBe('round');
    expect(span.attributes).toMatchObject({
      'gen_ai.tool.name': 'handoff',
      'engiloop.round': h!.round,
      'engiloop.handoff.from': 'cad',
      'engiloop.handoff.to': 'slicer',
      'engiloop.handoff.digest': h!.digest,
      'engiloop.handoff.bytes': h!.bytes,
      'engiloop.handoff.format': 'stl',
    });
    const shells = spans
      .filter((s) => s.name === 'execute_tool shell')
      .map((s) => s.attributes['engiloop.sandbox']);
    expect(new Set(shells)).toEqual(new Set(['cad', 'slicer']));
  });

  it('adds evaluation events per stage check, named by stage and round', () => {
    const { root } = trace(multi.id);
    const checks = of(multi.events, 'stage.checked');
    expect(checks.length).toBeGreaterThan(0);
    const staged = root.events.filter((e) => e.attributes['engiloop.stage'] !== undefined);
    expect(staged).toHaveLength(checks.reduce((n, c) => n + c.verdicts.length + 1, 0));
    for (const c of checks)
      expect(
        staged.find(
          (e) =>
            e.attributes['gen_ai.evaluation.name'] === 'stage_score' &&
            e.attributes['engiloop.stage'] === c.stage,
        )?.attributes,
      ).toMatchObject({
        'engiloop.round': c.round,
        'gen_ai.evaluation.score.value': c.score,
        'gen_ai.evaluation.score.label': c.passed ? 'pass' : 'fail',
      });
  });
});

describe('an LLM episode (recorded OpenAI responses, content captured)', () => {
  it('has one chat span per provider call, under agent.decide, with usage, models and finish reasons', () => {
    const { root, spans } = trace(llm.id);
    expect(root.name).toBe('invoke_agent openai:gpt-4o');
    expect(root.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
    });
    const calls = of(llm.events, 'agent.decided').map((e) => e.call!);
    const chats = spans.filter((s) => s.name.startsWith('chat '));
    expect(chats).toHaveLength(calls.length);
    chats.forEach((s, i) => {
      const decide = parentOf(s)!;
      expect(decide.name).toBe('agent.decide');
      expect(parentOf(parentOf(decide)!)).toBe(root);
      expect(s.name).toBe('chat gpt-4o');
      expect(s.kind).toBe(3); // CLIENT
      expect(s.start >= decide.start && s.end <= decide.end).toBe(true);
      expect(s.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.conversation.id': llm.id,
        'gen_ai.usage.input_tokens': 1512,
        'gen_ai.usage.output_tokens': 31,
        'gen_ai.usage.cache_read.input_tokens': 1280,
        'gen_ai.usage.cache_creation.input_tokens': 0,
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'server.address': '127.0.0.1',
        'engiloop.round': i + 1,
        'engiloop.retries': calls[i]!.retries,
        'engiloop.exchanges': calls[i]!.exchanges,
      });
      // Usage moved to the chat span: the decision span keeps engiloop's own attributes only.
      expect(decide.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    });
    expect(chats[0]!.attributes['engiloop.retries']).toBe(1); // the 429, inside the one span
    expect(root.attributes['gen_ai.usage.input_tokens']).toBe(1512 * calls.length);
  });

  it('captures messages in the conventions shape, the image as its object-store key, never inline', () => {
    const { spans } = trace(llm.id);
    const chats = spans.filter((s) => s.name.startsWith('chat '));
    const input = JSON.parse(String(chats[0]!.attributes['gen_ai.input.messages'])) as {
      role: string;
      parts: Record<string, unknown>[];
    }[];
    expect(input[0]!.role).toBe('system');
    expect(input[0]!.parts[0]).toMatchObject({ type: 'text' });
    const output = JSON.parse(String(chats[0]!.attributes['gen_ai.output.messages'])) as unknown;
    expect(output).toEqual([
      {
        role: 'assistant',
        finish_reason: 'tool_calls',
        parts: [
          { type: 'tool_call', id: 'call_otel_1', name: 'shell', arguments: { command: expect.any(String) } },
        ],
      },
    ]);
    const image = of(llm.events, 'observation.recorded').find((o) => o.images?.length)!.images![0]!;
    const last = JSON.parse(String(chats.at(-1)!.attributes['gen_ai.input.messages'])) as {
      parts: Record<string, unknown>[];
    }[];
    expect(last.flatMap((m) => m.parts).filter((p) => p.type === 'uri')).toEqual([
      { type: 'uri', modality: 'image', mime_type: 'image/png', uri: `sha256:${image.digest}` },
    ]);
    const tool = spans.find((s) => s.name === 'execute_tool shell')!;
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toMatchObject({
      command: expect.stringContaining('part.scad'),
    });
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.result']))).toMatchObject({ exit_code: 0 });
    const all = receiver.raw.join('\n');
    expect(all).not.toContain(DOT_PNG);
    expect(all).not.toContain('data:image/png;base64');
    expect(all).not.toContain(KEY);
  });
});

it('recordFailureModes puts the sorted, distinct modes on the span', () => {
  const probe = receiver.spans.find((s) => s.name === 'probe')!;
  expect(probe.attributes['engiloop.failure_modes']).toEqual([
    'deliverable.unverified',
    'loop.repeated_action',
  ]);
});
