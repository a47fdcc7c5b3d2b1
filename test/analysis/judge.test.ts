/**
 * The optional LLM judge on committed fixture episodes (test/fixtures/analysis/), against recorded
 * provider responses (test/fixtures/providers/judge-*.json) replayed by a local HTTP server
 * (test/agents/recorded-provider.ts) through the real OpenAI and Anthropic SDK adapters; the
 * exchanges go to a real object store on a real nats-server. The judge may add a mode the
 * detectors did not find, citing events of the log; it never overrides one they found, and drops
 * unknown ids and citations of rounds or events that do not exist, each with the reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentError, type Exchange } from '../../actors/agents/index.js';
import { detect } from '../../actors/analysis/detect.js';
import { checkAnswer } from '../../actors/analysis/judge-answer.js';
import { JUDGE_DETECTOR, JUDGE_PROMPT_VERSION, judgeEpisode } from '../../actors/analysis/judge.js';
import { episodeView, type EpisodeView } from '../../actors/analysis/view.js';
import { BlobStore, decodeEvent } from '../../streams/index.js';
import { fakeSleep, recorded, startRecordedProvider } from '../agents/recorded-provider.js';
import { startTestNats } from '../helpers/nats.js';

const KEY = 'sk-proj-JUDGEKEY0123456789abcdefghijklmnopqrstuv';
const DIR = join(import.meta.dirname, '../fixtures/analysis');

function view(name: string): EpisodeView {
  const events = readFileSync(join(DIR, `${name}.b64`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => decodeEvent(Buffer.from(l, 'base64')));
  return episodeView(events);
}

async function exchangesOf(blobs: BlobStore, digest: string): Promise<Exchange[]> {
  return JSON.parse((await blobs.get(digest)).toString('utf8')) as Exchange[];
}

describe('LLM judge against recorded provider responses', () => {
  it('adds a new mode citing the log, drops one already found, rejects unknown ids and missing rounds/events', async () => {
    await using nats = await startTestNats();
    await using server = await startRecordedProvider();
    const blobs = await BlobStore.open(nats.nc);
    server.queue(recorded('judge-openai-modes'));
    const v = view('openscad-plate--near-miss');
    const found = detect(v);
    expect(found.map((f) => f.mode).sort()).toEqual(['constraint.near_miss', 'termination.premature_done']);

    const j = await judgeEpisode(v, found, {
      spec: 'openai:gpt-4o',
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.openaiBaseURL },
      blobs,
    });

    // (b) new, valid: added as the judge's, with the events it cited.
    expect(j.added).toEqual([
      {
        mode: 'feedback.ignored',
        owner: 'agent',
        seqs: [14, 16],
        rounds: [3, 4],
        explanation: expect.stringContaining("printed 'size: 80.08 50 6'"),
        detector: JUDGE_DETECTOR,
      },
    ]);
    expect(JUDGE_DETECTOR).toBe('llm-judge');
    expect(v.events.find((l) => l.seq === 14)?.event.type).toBe('action.executed');
    // (a) already found: dropped, the deterministic finding untouched; (c) unknown id, missing round, missing event.
    expect(j.rejected).toEqual([
      {
        mode: 'termination.premature_done',
        why: expect.stringMatching(/^already found by the deterministic/),
      },
      { mode: 'constraint.dimension_typo', why: 'not a mode of the taxonomy' },
      { mode: 'verification.unverified_done', why: 'round(s) 9 not in the log (rounds 0–4)' },
      { mode: 'loop.no_progress', why: 'event(s) #99 not in the log' },
    ]);
    expect(j.unreadable).toBeNull();
    expect(detect(v)).toEqual(found);

    // The call, recorded like an agent call: usage, cost, prompt version, exchanges in the object store.
    expect(j.call).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o',
      usage: { input: 4210, output: 236, cached: 0, cacheWrite: 0 },
      retries: 0,
      stopReason: 'tool_calls',
      promptVersion: JUDGE_PROMPT_VERSION,
    });
    expect(j.call.costUsd).toBeCloseTo((4210 * 2.5 + 236 * 10) / 1e6, 12);
    expect(j.call.latencyMs).toBeGreaterThanOrEqual(0);
    const ex = await exchangesOf(blobs, j.call.exchanges);
    expect(ex).toHaveLength(1);
    expect(ex[0]!.request.headers.authorization).toBe('[REDACTED]');
    expect(ex[0]!.response?.status).toBe(200);
    expect(JSON.stringify(ex)).not.toContain(KEY);

    // What the model was shown: objective, timeline with #seq and measurements, findings, taxonomy.
    const body = server.received[0]!.body as {
      messages: { role: string; content: string }[];
      tools: { function: { name: string } }[];
    };
    expect(body.tools.map((t) => t.function.name)).toEqual(['report_modes']);
    const prompt = body.messages[1]!.content;
    expect(prompt).toContain('Model a mounting plate in OpenSCAD');
    expect(prompt).toContain('#14 r3 $ awk');
    expect(prompt).toContain('stdout: size: 80.08 50 6');
    expect(prompt).toMatch(
      /#17 r4 FINAL VERIFICATION FAILED score 0: .*bbox FAIL measured=\[80\.080002,50,6\] expected=\[80,50,6\]/,
    );
    expect(prompt).toContain('- constraint.near_miss (rounds');
    expect(prompt).toContain('- infrastructure.sandbox_lost [infrastructure]:');
    expect(ex[0]!.request.body).toEqual(body);
  });

  it('adds no agent-owned mode to a passing episode (Anthropic), and rejects rounds not in the log', async () => {
    await using nats = await startTestNats();
    await using server = await startRecordedProvider();
    const blobs = await BlobStore.open(nats.nc);
    server.queue(recorded('judge-anthropic-modes'));
    const v = view('clean-openscad-plate');
    const j = await judgeEpisode(v, detect(v), {
      spec: 'anthropic:claude-haiku-4-5',
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.anthropicBaseURL },
      blobs,
    });
    expect(j.added).toEqual([]);
    expect(j.rejected).toEqual([
      {
        mode: 'verification.unverified_done',
        why: 'the episode passed: agent-owned modes explain failures only',
      },
      { mode: 'harness.verifier_error', why: 'round(s) 99 not in the log (rounds 0–3)' },
    ]);
    expect(j.call).toMatchObject({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      usage: { input: 3875, output: 141, cached: 0, cacheWrite: 0 },
      stopReason: 'tool_use',
    });
    expect(await blobs.has(j.call.exchanges)).toBe(true);
    expect(server.received[0]!.url).toBe('/v1/messages');
  });

  it('retries a recorded 429 as agents do; an answer without report_modes is unreadable but recorded', async () => {
    await using nats = await startTestNats();
    await using server = await startRecordedProvider();
    const blobs = await BlobStore.open(nats.nc);
    server.queue(recorded('openai-429'), recorded('openai-done'));
    const s = fakeSleep();
    const v = view('openscad-plate--near-miss');
    const j = await judgeEpisode(v, detect(v), {
      spec: 'openai:gpt-4o',
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.openaiBaseURL },
      blobs,
      sleep: s.sleep,
      random: () => 0.5,
    });
    expect(s.delays).toEqual([1200]); // retry-after-ms of the recorded 429
    expect(j).toMatchObject({
      added: [],
      rejected: [],
      unreadable: 'no report_modes call and no JSON in the text',
    });
    expect(j.call.retries).toBe(1);
    const ex = await exchangesOf(blobs, j.call.exchanges);
    expect(ex.map((e) => [e.attempt, e.response?.status])).toEqual([
      [1, 429],
      [2, 200],
    ]);
  });

  it('refuses a spec that names no model and a provider without its key, before any request', async () => {
    await using nats = await startTestNats();
    const blobs = await BlobStore.open(nats.nc);
    const v = view('openscad-plate--near-miss');
    const err = (spec: string) =>
      judgeEpisode(v, [], { spec, env: {}, blobs }).catch((e: unknown) => e as AgentError);
    expect(await err('scripted')).toMatchObject({
      code: 'AGENT_UNKNOWN',
      message: expect.stringContaining('openai:<model>'),
    });
    expect(await err('anthropic:claude-haiku-4-5')).toMatchObject({
      code: 'AGENT_KEY_MISSING',
      message: expect.stringContaining('ANTHROPIC_API_KEY'),
    });
    expect(await err('scripted')).toBeInstanceOf(AgentError);
  });
});

describe('checking a judge answer against the log (pure)', () => {
  const v = view('openscad-plate--near-miss');
  const reply = (modes: unknown[], viaText = false) => ({
    calls: viaText ? [] : [{ name: 'report_modes', args: { modes } }],
    text: viaText ? `Here you are: ${JSON.stringify({ modes })}` : '',
    refusal: null,
    stopReason: 'tool_calls',
    usage: { input: 0, output: 0, cached: 0, cacheWrite: 0 },
  });
  const fb = {
    mode: 'feedback.ignored',
    rounds: [3, 4],
    seqs: [14, 16],
    explanation: 'printed 80.08, then DONE',
  };

  it('rejects events outside the cited rounds, a mode proposed twice, and a proposal without rounds', () => {
    const r = checkAnswer(
      reply([
        { ...fb, rounds: [4] },
        fb,
        { ...fb, explanation: 'again' },
        { mode: 'loop.no_progress', rounds: [], seqs: [], explanation: 'x' },
        'not an object',
      ]),
      v,
      [],
      false,
    );
    expect(r.added.map((f) => [f.mode, f.seqs, f.rounds])).toEqual([['feedback.ignored', [14, 16], [3, 4]]]);
    expect(r.rejected).toEqual([
      { mode: 'feedback.ignored', why: 'event(s) #14 (round 3) outside the cited rounds' },
      { mode: 'feedback.ignored', why: 'proposed twice' },
      { mode: 'loop.no_progress', why: 'cites no rounds (a list of round numbers is required)' },
      { mode: '?', why: 'not a mode of the taxonomy' },
    ]);
  });

  it("reads a JSON answer from the text; without events named, cites the rounds' decisions", () => {
    const r = checkAnswer(reply([{ ...fb, seqs: [] }], true), v, [], false);
    expect(r.unreadable).toBeNull();
    expect(r.added[0]).toMatchObject({ mode: 'feedback.ignored', seqs: [12, 16], rounds: [3, 4] });
    expect(v.events.filter((l) => [12, 16].includes(l.seq)).map((l) => l.event.type)).toEqual([
      'agent.decided',
      'agent.decided',
    ]);
  });
});
