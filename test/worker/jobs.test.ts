/**
 * Jobs and leases: a job delivered twice makes one episode; a worker that lost its episode to
 * another stops at its next append and writes nothing. Real nats-server, real Docker.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../actors/agents/index.js';
import { runEpisode } from '../../actors/episode/index.js';
import { readEventsFile } from '../../actors/replay/index.js';
import { newRunId } from '../../actors/run/index.js';
import { packTask, runWorker, type WorkerEnv } from '../../actors/worker/index.js';
import { JobQueue, RunIndex } from '../../streams/index.js';
import { taskRecord } from '../../tasks/index.js';
import { episodeKit, starter, type EpisodeKit } from '../helpers/episode.js';

let kit: EpisodeKit;
let env: WorkerEnv;
beforeAll(async () => {
  kit = await episodeKit();
  const queue = await JobQueue.open(kit.nats.nc, { ackWaitMs: 5_000 });
  env = {
    queue,
    log: kit.log,
    blobs: kit.blobs,
    runs: await RunIndex.open(kit.nats.nc),
    home: kit.dir,
    deps: { blobs: kit.blobs, sandboxes: kit.provider, runTool: kit.deps.runTool, verify: kit.deps.verify },
  };
});
afterAll(async () => {
  await kit?.close();
});

describe('jobs', () => {
  it('the same job delivered twice makes one episode', async () => {
    const lt = await starter('verilog-counter');
    const runId = newRunId();
    const episodeId = `${runId}-verilog-counter-1`;
    await env.runs.start(runId, {
      suite: 'x',
      agent: 'scripted',
      episodes: [episodeId],
      startedAt: Date.now(),
    });
    const job = {
      v: 1 as const,
      runId,
      episodeId,
      taskId: lt.task.id,
      agent: 'scripted',
      taskBlob: await kit.blobs.put(await packTask(lt.dir)),
    };
    await env.queue.submit(job);
    expect(await runWorker(env, { concurrency: 1, heartbeatMs: 1_000, idleExitMs: 1_500 })).toBe(1);
    const first = await kit.log.readRaw(episodeId);
    expect((await kit.log.read(episodeId)).at(-1)?.type).toBe('episode.ended');
    // Delivered again (as after a redelivery past the dedupe window): acknowledged, nothing appended.
    await env.queue.js.publish(`engiloop.job.${runId}`, JSON.stringify(job), { msgID: `${episodeId}:again` });
    const seen: string[] = [];
    expect(
      await runWorker(env, {
        concurrency: 1,
        heartbeatMs: 1_000,
        idleExitMs: 1_500,
        onEpisode: (r) => seen.push(r.status),
      }),
    ).toBe(1);
    expect(seen).toEqual(['done']);
    expect((await kit.log.readRaw(episodeId)).length).toBe(first.length);
    expect((await kit.log.read(episodeId)).at(-1)?.type).toBe('episode.ended');
    expect(await env.queue.pending()).toEqual({ waiting: 0, inProgress: 0 });
    // The last worker to finish an episode of the run records the run as finished.
    expect((await env.runs.get(runId))?.finished).not.toBeNull();
  });

  it('a worker that lost its lease stops at its next append and writes nothing', async () => {
    const lt = await starter('openscad-plate');
    // A half-done episode: the first rounds of a recorded log, appended under a new id.
    const recorded = await readEventsFile(
      join(import.meta.dirname, '../fixtures/episodes/openscad-plate.v3.b64'),
    );
    const episodeId = `${newRunId()}-openscad-plate-1`;
    // Shifted to now: the episode's wall-clock cap counts from its recorded start.
    const shift = Date.now() - 5_000 - recorded[0]!.at;
    const prior = recorded
      .slice(0, 6)
      .map((e) => ({ ...e, at: e.at + shift }))
      .map((e) => (e.type === 'episode.started' ? { ...e, episodeId, task: taskRecord(lt.task) } : e));
    const w = kit.log.writer(episodeId);
    for (const e of prior) await w.append(e);
    // Two workers both believe they hold the episode; B appends first.
    const writerA = await kit.log.resume(episodeId);
    const writerB = await kit.log.resume(episodeId);
    const run = (writer: typeof writerA) =>
      runEpisode(
        lt,
        { ...kit.deps, openLog: () => writer },
        {
          episodeId,
          runId: 'r',
          agent: createAgent('scripted', lt),
          artifactsDir: join(kit.dir, episodeId),
          prior,
        },
      );
    const b = await run(writerB);
    expect(b.status).toBe('done');
    expect(b.score).toBe(1);
    const after = (await kit.log.readRaw(episodeId)).length;
    const a = await run(writerA);
    expect(a.error?.code).toBe('LOG_CONFLICT');
    expect((await kit.log.readRaw(episodeId)).length).toBe(after);
    const events = await kit.log.read(episodeId);
    expect(events.filter((e) => e.type === 'episode.resumed')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'episode.ended')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('episode.ended');
    expect(await kit.leftovers()).toEqual([]);
  });
});
