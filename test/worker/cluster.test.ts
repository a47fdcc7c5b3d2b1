/**
 * A three-node NATS cluster with R3 streams: the node leading `ENGILOOP_EVENTS` is killed with
 * SIGKILL while real worker processes run a batch of episodes. Every episode still finishes with the
 * verdicts of an uninterrupted run, no event is lost or recorded twice, and the run's results are
 * complete. The node then comes back and catches up. Real nats-servers, real workers, real Docker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAgent } from '../../actors/agents/index.js';
import { runEpisode, episodeDeps, type EpisodeDeps } from '../../actors/episode/index.js';
import { newRunId, planEpisodes } from '../../actors/run/index.js';
import { DockerSandboxProvider } from '../../actors/sandbox/index.js';
import { packTask, runProgress, runResults } from '../../actors/worker/index.js';
import {
  BLOB_BUCKET,
  BlobStore,
  EVENTS_STREAM,
  EpisodeLog,
  JOBS_STREAM,
  JobQueue,
  RUNS_STREAM,
  RunIndex,
  WORKERS_CONSUMER,
} from '../../streams/index.js';
import { loadSuite, type LoadedTask } from '../../tasks/index.js';
import { startTestCluster, type TestNatsCluster } from '../helpers/nats-cluster.js';

const ROOT = join(import.meta.dirname, '../..');
const SLOW = join(import.meta.dirname, '../fixtures/tasks');
const STREAMS = [EVENTS_STREAM, RUNS_STREAM, JOBS_STREAM, `OBJ_${BLOB_BUCKET}`];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A real worker process; its output goes to a log file (an unread pipe would block it). */
function worker(env: Record<string, string>, logFd: number): ChildProcess {
  const args = ['worker', '--concurrency', '2', '--ack-wait', '15', '--idle-exit', '120'];
  return spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'actors/cli/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', logFd, logFd],
  });
}

const exited = (p: ChildProcess) =>
  new Promise<void>((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once('exit', () => r())));

let cluster: TestNatsCluster;
let tasks: LoadedTask[];
let home: string;
beforeAll(async () => {
  cluster = await startTestCluster(3);
  tasks = (await loadSuite(SLOW)).tasks.filter((lt) => lt.task.id.startsWith('slow-'));
  expect(tasks).toHaveLength(3);
  home = await mkdtemp(join(tmpdir(), 'engiloop-cluster-'));
});
afterAll(async () => {
  await cluster?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

it('streams created with one replica are scaled to three; a client without the option keeps them', async () => {
  const { nc, jsm } = cluster;
  await Promise.all([EpisodeLog.open(nc), RunIndex.open(nc), JobQueue.open(nc), BlobStore.open(nc)]);
  for (const s of STREAMS) expect((await jsm.streams.info(s)).config.num_replicas, s).toBe(1);

  const o = { replicas: 3 };
  await Promise.all([EpisodeLog.open(nc, o), JobQueue.open(nc, o), BlobStore.open(nc, undefined, o)]);
  // As the CLI does (streams-env.ts), then a worker opening the queue with no replicas option.
  await Promise.all([RunIndex.open(nc), JobQueue.open(nc, { ackWaitMs: 15_000 }), BlobStore.open(nc)]);
  for (const s of STREAMS) {
    await cluster.waitForReplicas(s);
    const info = await jsm.streams.info(s);
    expect(info.config.num_replicas, s).toBe(3);
    expect(info.cluster?.replicas ?? [], s).toHaveLength(2);
  }
  // The workers' consumer follows its stream's replicas. While it moves to them, its info can list a
  // peer it is leaving (3 replicas seen once on a loaded CI machine): give it up to 15 s to settle.
  let consumer = await jsm.consumers.info(JOBS_STREAM, WORKERS_CONSUMER);
  for (let t0 = Date.now(); (consumer.cluster?.replicas ?? []).length !== 2 && Date.now() - t0 < 15_000;) {
    await new Promise((r) => setTimeout(r, 250));
    consumer = await jsm.consumers.info(JOBS_STREAM, WORKERS_CONSUMER);
  }
  expect(consumer.cluster?.replicas ?? []).toHaveLength(2);
});

it(
  'kill -9 of the events stream leader mid-run: every episode finishes, nothing lost',
  { timeout: 420_000 },
  async () => {
    const t0 = Date.now();
    const { nc, jsm } = cluster;
    const log = await EpisodeLog.open(nc, { replicas: 3 });
    const blobs = await BlobStore.open(nc, undefined, { replicas: 3 });
    const runs = await RunIndex.open(nc, undefined, { replicas: 3 });
    const queue = await JobQueue.open(nc, { replicas: 3, ackWaitMs: 15_000 });
    const provider = new DockerSandboxProvider();

    // Uninterrupted reference, one episode per task, in this process.
    const refRun = newRunId();
    const deps: EpisodeDeps = episodeDeps({ log, blobs, provider });
    const reference = new Map<string, { score: number | null; passed: string[] }>();
    await Promise.all(
      tasks.map(async (lt) => {
        const episodeId = `${refRun}-${lt.task.id}`;
        const r = await runEpisode(lt, deps, {
          episodeId,
          runId: refRun,
          agent: createAgent('scripted', lt),
          artifactsDir: join(home, 'reference', episodeId),
        });
        expect(r.status).toBe('done');
        reference.set(lt.task.id, {
          score: r.score,
          passed: r.verdicts.filter((v) => v.passed).map((v) => v.criterion),
        });
      }),
    );
    const tRef = Date.now();

    // The batch: two episodes per task through the queue.
    const runId = newRunId();
    const plan = planEpisodes(runId, tasks, 2);
    const ids = plan.map((p) => p.episodeId);
    await runs.start(runId, { suite: SLOW, agent: 'scripted', episodes: ids, startedAt: Date.now() });
    for (const lt of tasks) {
      const taskBlob = await blobs.put(await packTask(lt.dir));
      for (const p of plan.filter((x) => x.lt === lt))
        await queue.submit({
          v: 1,
          runId,
          episodeId: p.episodeId,
          taskId: lt.task.id,
          agent: 'scripted',
          taskBlob,
        });
    }

    // Two workers, each given every node of the cluster.
    const env = { NATS_URL: cluster.url, ENGILOOP_NATS_REPLICAS: '3', ENGILOOP_HOME: home };
    const logFd = openSync(process.env.ENGILOOP_CLUSTER_LOG ?? join(home, 'workers.log'), 'a');
    const workers = [worker(env, logFd), worker(env, logFd)];
    // Events of the batch so far, in one request (the stream's per-subject counts).
    const total = async () => {
      const info = await jsm.streams.info(EVENTS_STREAM, { subjects_filter: 'engiloop.ep.>' });
      const subjects = info.state.subjects ?? {};
      return ids.reduce((sum, id) => sum + (subjects[`engiloop.ep.${id}`] ?? 0), 0);
    };

    try {
      // Mid-run: once the batch has written some events and none has ended, kill the events leader.
      for (let i = 0; i < 1_200 && (await total()) < 20; i++) await sleep(50);
      // Mid-run: some episodes are still going (on a loaded machine a short one may already be over).
      const progress = await runProgress(log, ids);
      expect(progress.filter((p) => !p.ended).length).toBeGreaterThanOrEqual(2);
      const before = await total();
      expect(before).toBeGreaterThanOrEqual(20);
      const leader = await cluster.leaderOf(EVENTS_STREAM);
      const victim = cluster.indexOf(leader);
      const onVictim: string[] = [];
      for (const s of STREAMS) if ((await cluster.leaderOf(s)) === leader) onVictim.push(s);
      const tKill = Date.now();
      await cluster.kill(victim);

      // Recovery: a new leader is elected, and the workers append again.
      let newLeader = leader;
      while (newLeader === leader && Date.now() - tKill < 60_000) {
        newLeader = await cluster.leaderOf(EVENTS_STREAM).catch(() => leader);
        if (newLeader === leader) await sleep(100);
      }
      const tLeader = Date.now();
      expect(newLeader).not.toBe(leader);
      let after = before;
      while (after <= before && Date.now() - tKill < 60_000) {
        after = await total().catch(() => before);
        if (after <= before) await sleep(100);
      }
      const tAppend = Date.now();
      expect(after).toBeGreaterThan(before);

      // The run finishes on two nodes.
      let finished = null;
      while (!finished && Date.now() - t0 < 160_000) {
        finished = (await runs.get(runId))?.finished ?? null;
        if (!finished) await sleep(500);
      }
      const tDone = Date.now();
      expect(finished, 'run.finished recorded').not.toBeNull();
      const progressAfter = await runProgress(log, ids);
      expect(progressAfter.every((p) => p.ended)).toBe(true);

      // The killed node comes back and catches up; every stream is R3 with all replicas current.
      // (Before the reads below: while it is down, a third of them time out once; see retryTimeouts.)
      await cluster.restart(victim);
      const tRestart = Date.now();
      const caughtUp: string[] = [];
      for (const s of STREAMS) {
        // On a loaded 2-core CI machine the catch-up of the events stream took over 60 s once, and
        // once never finished in 150 s: nats-server 2.10 can leave a follower restarted after
        // SIGKILL stalled in catch-up (fixed in 2.11, nats-server#6964). An operator's remedy is a
        // leader step-down, after which the new leader syncs the follower; the test does the same
        // and says so, and still requires every replica current.
        try {
          await cluster.waitForReplicas(s, 60_000);
        } catch {
          console.log(`${s}: a replica still catching up after 60 s; stepping the leader down`);
          await nc
            .request(`$JS.API.STREAM.LEADER.STEPDOWN.${s}`, undefined, { timeout: 10_000 })
            .catch(() => null);
          await cluster.waitForReplicas(s, 90_000);
        }
        caughtUp.push(`${s} ${Date.now() - tRestart} ms`);
        expect((await jsm.streams.info(s)).config.num_replicas, s).toBe(3);
      }

      // Every episode: contiguous log, no action result twice, one end, the reference verdicts.
      for (const p of plan) {
        const raw = await log.readRaw(p.episodeId);
        expect(
          raw.map((r) => r.n),
          `${p.episodeId}: gap or duplicate`,
        ).toEqual(raw.map((_, i) => i + 1));
        const events = await log.read(p.episodeId);
        const executed = events.flatMap((e) =>
          e.type === 'action.executed' ? [`${e.round}.${e.index}`] : [],
        );
        expect(new Set(executed).size, `${p.episodeId}: an action result recorded twice`).toBe(
          executed.length,
        );
        expect(events.filter((e) => e.type === 'episode.ended')).toHaveLength(1);
        const ended = events.at(-1)!;
        const want = reference.get(p.lt.task.id)!;
        const infra = events.find((e) => e.type === 'infra.failed');
        expect(
          ended.type === 'episode.ended' && ended.status,
          `${p.episodeId}: ${JSON.stringify(infra ?? events.slice(-4).map((e) => e.type))}`,
        ).toBe('done');
        expect(ended.type === 'episode.ended' && ended.score, p.episodeId).toBe(want.score);
        const v = events.find((e) => e.type === 'verification.completed');
        expect(
          v?.type === 'verification.completed' && v.verdicts.filter((x) => x.passed).map((x) => x.criterion),
          p.episodeId,
        ).toEqual(want.passed);
      }
      const results = await runResults(log, ids);
      expect(results.complete).toBe(true);
      expect((finished!.results as { results: unknown[] }).results).toHaveLength(plan.length);

      for (const id of [refRun, runId]) {
        const left = await new Docker().listContainers({
          all: true,
          filters: { label: [`io.engiloop.run=${id}`] },
        });
        expect(left, `containers of ${id} left`).toEqual([]);
      }
      console.log(
        `cluster: killed ${leader} (leader of ${onVictim.join(', ')}) after ${before} events; ` +
          `new events leader ${newLeader} in ${tLeader - tKill} ms, next append in ${tAppend - tKill} ms; ` +
          `reference ${tRef - t0} ms, batch of ${plan.length} done ${tDone - tRef} ms after submit; ` +
          `restarted node current: ${caughtUp.join(', ')}; total ${Date.now() - t0} ms`,
      );
    } finally {
      for (const w of workers) w.kill('SIGTERM');
      await Promise.all(workers.map(exited));
      closeSync(logFd);
    }
  },
);
