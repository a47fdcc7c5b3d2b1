/**
 * Workers killed with SIGKILL at random moments, again and again, while a batch of episodes runs:
 * every episode finishes, with the verdicts of an uninterrupted run, no event lost, no action result
 * recorded twice. Real worker processes, real signals, a real nats-server and Docker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../actors/agents/index.js';
import { loadRun } from '../../actors/analysis/index.js';
import { newRunId, planEpisodes } from '../../actors/run/index.js';
import { packTask, runProgress } from '../../actors/worker/index.js';
import { JobQueue, RunIndex, SummaryStore } from '../../streams/index.js';
import { loadSuite, type LoadedTask } from '../../tasks/index.js';
import { episodeKit, type EpisodeKit } from '../helpers/episode.js';

const ROOT = join(import.meta.dirname, '../..');
const SLOW = join(import.meta.dirname, '../fixtures/tasks');

/** A real worker process; its output goes to a log file (an unread pipe would block it). */
function worker(env: Record<string, string>, logFd: number, concurrency: number): ChildProcess {
  return spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'actors/cli/main.ts'),
      'worker',
      '--concurrency',
      String(concurrency),
      '--ack-wait',
      '2',
      '--max-deliver',
      '200',
      '--idle-exit',
      '30',
    ],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', logFd, logFd] },
  );
}

const exited = (p: ChildProcess) =>
  new Promise<void>((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once('exit', () => r())));

let kit: EpisodeKit;
let tasks: LoadedTask[];
let home: string;
beforeAll(async () => {
  kit = await episodeKit();
  tasks = (await loadSuite(SLOW)).tasks;
  home = await mkdtemp(join(tmpdir(), 'engiloop-chaos-'));
});
afterAll(async () => {
  await kit?.close();
  await rm(home, { recursive: true, force: true });
});

describe('kill -9 workers mid-episode', () => {
  it(
    'every episode finishes with the uninterrupted verdicts; nothing lost or duplicated',
    { timeout: 900_000 },
    async () => {
      // Uninterrupted baselines, one per task.
      const baseline = new Map<string, { score: number | null; passed: string[] }>();
      for (const lt of tasks) {
        const r = await kit.run(lt, createAgent('scripted', lt));
        expect(r.status).toBe('done');
        baseline.set(lt.task.id, {
          score: r.score,
          passed: r.verdicts.filter((v) => v.passed).map((v) => v.criterion),
        });
      }

      // A batch of 24 episodes through the queue.
      const queue = await JobQueue.open(kit.nats.nc, { ackWaitMs: 2_000 });
      const runs = await RunIndex.open(kit.nats.nc);
      const runId = newRunId();
      const plan = planEpisodes(runId, tasks, 10);
      await runs.start(runId, {
        suite: SLOW,
        agent: 'scripted',
        episodes: plan.map((p) => p.episodeId),
        startedAt: Date.now(),
      });
      for (const lt of tasks) {
        const taskBlob = await kit.blobs.put(await packTask(lt.dir));
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
      // The same job submitted again is stored once.
      expect(
        (
          await queue.submit({
            v: 1,
            runId,
            episodeId: plan[0]!.episodeId,
            taskId: tasks[0]!.task.id,
            agent: 'scripted',
            taskBlob: 'x',
          })
        ).duplicate,
      ).toBe(true);

      const env: Record<string, string> = { NATS_URL: kit.nats.url, ENGILOOP_HOME: home };
      const logFd = openSync(process.env.ENGILOOP_CHAOS_LOG ?? join(home, 'workers.log'), 'a');
      const allEnded = async () =>
        (
          await runProgress(
            kit.log,
            plan.map((p) => p.episodeId),
          )
        ).every((r) => r.ended);
      const ids = plan.map((p) => p.episodeId);
      // Events per episode, in one request (the stream's per-subject counts).
      const counts = async () => {
        const info = await kit.log.jsm.streams.info('ENGILOOP_EVENTS', { subjects_filter: 'engiloop.ep.>' });
        const subjects = info.state.subjects ?? {};
        return new Map(ids.map((id) => [id, subjects[`engiloop.ep.${id}`] ?? 0]));
      };
      let kills = 0;
      let trials = 0; // kills that landed inside an episode
      const interrupted = new Set<string>();
      // Chaos: start a worker (one episode at a time); kill -9 it after it appended a random number
      // of events to an episode, i.e. at a random round. Repeat for at least 20 such trials.
      while (trials < 22 && kills < 45 && !(await allEnded())) {
        const before = await counts();
        const w = worker(env, logFd, 1);
        const target = 2 + Math.floor(Math.random() * 14);
        let inside: string | undefined;
        for (let i = 0; i < 600 && !inside; i++) {
          const now = await counts();
          inside = ids.find((id) => (now.get(id) ?? 0) - (before.get(id) ?? 0) >= target);
          if (!inside) await new Promise((r) => setTimeout(r, 50));
        }
        w.kill('SIGKILL');
        await exited(w);
        kills++;
        if (inside && (await kit.log.last(inside))?.type !== 'episode.ended') {
          trials++;
          interrupted.add(inside);
        }
      }
      // Then a worker that is left alone finishes what remains (resuming the interrupted episodes).
      const last = worker(env, logFd, 3);
      const t0 = Date.now();
      while (!(await allEnded()) && Date.now() - t0 < 600_000) await new Promise((r) => setTimeout(r, 1_000));
      last.kill('SIGTERM');
      await exited(last);
      closeSync(logFd);
      expect(await allEnded()).toBe(true);

      let resumed = 0;
      for (const p of plan) {
        const raw = await kit.log.readRaw(p.episodeId);
        // No event lost: positions 1..N with no gap, each once.
        expect(raw.map((r) => r.n)).toEqual(raw.map((_, i) => i + 1));
        const events = await kit.log.read(p.episodeId);
        const executed = events
          .filter((e) => e.type === 'action.executed')
          .map((e) => (e.type === 'action.executed' ? `${e.round}.${e.index}` : ''));
        expect(new Set(executed).size, `${p.episodeId}: an action result recorded twice`).toBe(
          executed.length,
        );
        resumed += events.filter((e) => e.type === 'episode.resumed').length > 0 ? 1 : 0;
        const ended = events.at(-1)!;
        expect(ended.type).toBe('episode.ended');
        const v = events.find((e) => e.type === 'verification.completed');
        const want = baseline.get(p.lt.task.id)!;
        expect(ended.type === 'episode.ended' && ended.score, p.episodeId).toBe(want.score);
        expect(
          v?.type === 'verification.completed' && v.verdicts.filter((x) => x.passed).map((x) => x.criterion),
        ).toEqual(want.passed);
        expect(events.filter((e) => e.type === 'episode.ended')).toHaveLength(1);
      }
      console.log(
        `chaos: ${kills} kill -9, ${trials} inside an episode (${interrupted.size} episodes), ${resumed} of ${plan.length} resumed from their log`,
      );
      expect(trials).toBeGreaterThanOrEqual(20);
      expect(resumed).toBeGreaterThanOrEqual(interrupted.size);
      // Workers write each episode's summary after its end (a kill between the two leaves one to
      // be refolded by analyze); every stored one agrees with its log.
      const summaries = await new SummaryStore(kit.log.js, kit.log.jsm).forRun(runId);
      expect(summaries.size).toBeGreaterThanOrEqual(plan.length - kills);
      for (const [id, sum] of summaries) expect(sum.score, id).toBe(baseline.get(sum.taskId)!.score);
      const loaded = await loadRun(
        { log: kit.log, runs, summaries: new SummaryStore(kit.log.js, kit.log.jsm) },
        runId,
      );
      expect(loaded.summaries).toHaveLength(plan.length);
      expect(loaded.refolded).toBe(plan.length - summaries.size);
      expect(await kit.leftovers()).toEqual([]);
    },
  );
});
