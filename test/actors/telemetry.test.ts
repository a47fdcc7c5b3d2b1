/** Spans of a real episode: episode → round → agent decision → action, and verify → verifier. */
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAgent } from '../../actors/agents/index.js';
import { telemetryConfigured } from '../../actors/telemetry.js';
import { episodeKit, starter, type EpisodeKit } from '../helpers/episode.js';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
let kit: EpisodeKit;
beforeAll(async () => {
  trace.setGlobalTracerProvider(provider);
  kit = await episodeKit();
});
afterAll(async () => {
  await kit?.close();
  await provider.shutdown();
  trace.disable();
});

it('an episode emits nested spans with task id, round, exit code and status', async () => {
  const lt = await starter('openscad-plate');
  const r = await kit.run(lt, createAgent('scripted', lt));
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const parentName = (s: (typeof spans)[number]) => byId.get(s.parentSpanContext?.spanId ?? '')?.name;

  const episode = spans.find((s) => s.name === 'episode')!;
  expect(episode.attributes['engiloop.task']).toBe('openscad-plate');
  expect(episode.attributes['engiloop.status']).toBe(r.status);
  const rounds = spans.filter((s) => s.name === 'round');
  expect(rounds.length).toBe(r.rounds);
  for (const s of rounds) expect(parentName(s)).toBe('episode');
  for (const s of spans.filter((x) => x.name === 'agent.decide')) expect(parentName(s)).toBe('round');
  const actions = spans.filter((s) => s.name === 'action');
  expect(actions.length).toBe(2);
  for (const s of actions) {
    expect(parentName(s)).toBe('round');
    expect(s.attributes['engiloop.exit_code']).toBe(0);
  }
  const verify = spans.find((s) => s.name === 'verify')!;
  expect(parentName(verify)).toBe('episode');
  const verifiers = spans.filter((s) => s.name.startsWith('verifier '));
  expect(verifiers.length).toBe(lt.task.criteria.length);
  for (const s of verifiers) expect(parentName(s)).toBe('verify');
});

it('telemetry is only loaded when an OTEL_* variable asks for it', () => {
  expect(telemetryConfigured({})).toBe(false);
  expect(telemetryConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
  expect(telemetryConfigured({ OTEL_TRACES_EXPORTER: 'console', OTEL_SDK_DISABLED: 'true' })).toBe(false);
});
