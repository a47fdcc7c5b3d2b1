/**
 * An LLM agent running a real episode (real nats-server, Docker, openscad, the STL verifiers)
 * against a local HTTP server that answers with RECORDED OpenAI chat-completion responses (no
 * provider is reachable from here): tool calls become actions, a 429 is retried and recorded as an
 * event, a PNG the agent asks to view reaches the next request, tokens and cost are totalled, the
 * key never enters the log, a provider that stays down ends the episode as infra_error, and
 * `replay --execute` re-drives the episode with no network.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, ReplayLlmAgent, type Exchange } from '../../actors/agents/index.js';
import { applyEvent, initialSnapshot, type FoldedSnapshot } from '../../machines/index.js';
import { runEpisode, type EpisodeResult } from '../../actors/episode/index.js';
import { replayExecute } from '../../actors/replay/index.js';
import type { EpisodeEvent } from '../../streams/events.js';
import type { LoadedTask } from '../../tasks/index.js';
import {
  recorded,
  startRecordedProvider,
  type RecordedProvider,
  type RecordedResponse,
} from '../agents/recorded-provider.js';
import { episodeKit, starter, type EpisodeKit } from '../helpers/episode.js';

const KEY = 'sk-test-5f3c0d9e-never-logged';
const DOT_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The recorded tool-call response with its call replaced by `name(args)`. */
function toolCall(name: string, args: Record<string, unknown>, n: number): RecordedResponse {
  const r = structuredClone(recorded('openai-tool-call')) as RecordedResponse & {
    body: {
      id: string;
      choices: { message: { tool_calls: { id: string; function: { name: string; arguments: string } }[] } }[];
    };
  };
  r.body.id = `chatcmpl-episode-${n}`;
  const call = r.body.choices[0]!.message.tool_calls[0]!;
  call.id = `call_episode_${n}`;
  call.function = { name, arguments: JSON.stringify(args) };
  return r;
}

let kit: EpisodeKit;
let server: RecordedProvider;
let plate: LoadedTask;
let n = 0;
beforeAll(async () => {
  kit = await episodeKit();
  server = await startRecordedProvider();
  plate = await starter('openscad-plate');
});
afterAll(async () => {
  await server?.close();
  await kit?.close();
});

async function play(lt: LoadedTask, retry = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 }) {
  const id = `${kit.runId}-llm-${++n}`;
  const agent = createAgent('openai:gpt-4o', lt, {
    env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.openaiBaseURL },
    llm: { retry },
  });
  const r: EpisodeResult = await runEpisode(lt, kit.deps, {
    episodeId: id,
    runId: kit.runId,
    agent,
    artifactsDir: join(kit.dir, id),
  });
  return { r, events: await kit.log.read(id), id };
}
const of = <T extends EpisodeEvent['type']>(es: EpisodeEvent[], t: T) =>
  es.filter((e): e is Extract<EpisodeEvent, { type: T }> => e.type === t);

describe('an LLM agent through a whole episode (recorded provider responses)', () => {
  let run: Awaited<ReturnType<typeof play>>;
  let before: number;
  beforeAll(async () => {
    const [scad, stl] = plate.task.reference.map((s) => (Array.isArray(s) ? s[0]! : s));
    if (scad?.type !== 'shell' || stl?.type !== 'shell') throw new Error('reference changed');
    before = server.received.length;
    server.queue(
      recorded('openai-429'),
      toolCall('shell', { command: scad.command }, 1),
      toolCall('shell', { command: `${stl.command} && echo ${DOT_PNG} | base64 -d > dot.png` }, 2),
      toolCall('view_image', { path: 'dot.png' }, 3),
      toolCall('done', { message: 'part.stl exported' }, 4),
    );
    run = await play(plate);
  }, 120_000);

  it('plays the tool calls as actions and passes', () => {
    expect(run.r.status).toBe('done');
    expect(run.r.score).toBe(1);
    expect(run.r.rounds).toBe(4);
    expect(server.received.length - before).toBe(5);
  });

  it('records the provider retry as an event, never as the agent failing', () => {
    const retried = of(run.events, 'agent.retried');
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ round: 1, attempt: 1, status: 429 });
    expect(of(run.events, 'agent.decided')[0]!.call?.retries).toBe(1);
  });

  it('shows the PNG the agent asked for with the next request', () => {
    const obs = of(run.events, 'observation.recorded').find((o) => o.images?.length);
    expect(obs?.round).toBe(4);
    expect(obs?.images?.[0]).toMatchObject({ name: 'dot.png', mediaType: 'image/png' });
    expect(obs?.text).toMatch(/view_image dot\.png: attached/);
    const last = server.received.at(-1)!.text;
    expect(last).toContain(`data:image/png;base64,${DOT_PNG}`);
  });

  it('totals tokens and cost, and keeps the key out of the log and the exchanges', async () => {
    const calls = of(run.events, 'agent.decided').map((e) => e.call!);
    expect(calls.every((c) => c.usage.input > 0 && c.provider === 'openai')).toBe(true);
    expect(run.r.usage?.calls).toBe(4);
    expect(run.r.usage?.input).toBe(calls.reduce((a, c) => a + c.usage.input, 0));
    expect(run.r.usage?.retries).toBe(1);
    expect(run.r.usage?.costUsd).toBeGreaterThan(0);
    const exchanges = await kit.blobs.getText(calls[0]!.exchanges);
    expect(JSON.parse(exchanges)).toHaveLength(2); // the 429, then the answer
    expect(exchanges).not.toContain(KEY);
    expect(JSON.stringify(run.events)).not.toContain(KEY);
    expect(server.received.every((q) => String(q.headers.authorization).includes(KEY))).toBe(true);
  });

  it('a replay agent rebuilds every request from the log and answers from the recording, offline', async () => {
    const count = server.received.length;
    const calls = of(run.events, 'agent.decided').map((e) => e.call!);
    const exchanges = (
      await Promise.all(
        calls.map(async (c) => JSON.parse(await kit.blobs.getText(c.exchanges)) as Exchange[]),
      )
    ).flat();
    const agent = new ReplayLlmAgent({
      provider: 'openai',
      model: 'gpt-4o',
      exchanges,
      retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
    });
    // Fold the log; at each decision, ask the replay agent with the input the live agent had.
    let snap: FoldedSnapshot = initialSnapshot();
    let images: { name: string; mediaType: string; data: Buffer }[] = [];
    for (const e of run.events) {
      if (e.type === 'observation.recorded')
        images = await Promise.all(
          (e.images ?? []).map(async (i) => ({
            name: i.name,
            mediaType: i.mediaType,
            data: await kit.blobs.get(i.digest),
          })),
        );
      if (e.type === 'agent.decided') {
        const raw = await agent.decide({
          task: plate.task,
          round: e.round,
          observation: snap.context.observation ?? '',
          history: snap.context.history,
          ...(images.length ? { images } : {}),
        });
        expect(raw).toEqual(e.raw);
      }
      snap = applyEvent(snap, e);
    }
    expect(server.received.length).toBe(count);
  });

  it('replay --execute re-drives the episode with no provider at all', async () => {
    const count = server.received.length;
    const id = `${kit.runId}-llm-replay`;
    const rep = await replayExecute(run.events, plate, kit.deps, {
      episodeId: id,
      runId: kit.runId,
      artifactsDir: join(kit.dir, id),
      read: (e) => kit.log.read(e),
    });
    expect(rep.verdict).toBe('identical');
    expect(server.received.length).toBe(count);
  }, 120_000);
});

it('a provider that stays down ends the episode as infra_error, not scored', async () => {
  server.queue(recorded('openai-500'), recorded('openai-500'), recorded('openai-500'));
  const { r, events } = await play(plate);
  expect(r.status).toBe('infra_error');
  expect(r.score).toBeNull();
  expect(r.error?.code).toBe('PROVIDER_UNAVAILABLE');
  expect(of(events, 'agent.retried')).toHaveLength(2);
  expect(await kit.leftovers()).toEqual([]);
}, 120_000);
