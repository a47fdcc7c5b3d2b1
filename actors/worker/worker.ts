/**
 * `engiloop worker`: pulls episode jobs from JetStream and runs them, `concurrency` at a time. A job
 * whose episode already has events is resumed from its log; one that already ended is acknowledged
 * as is (a job delivered twice makes one episode). While an episode runs, its job is kept with
 * in-progress acks; if this worker dies, the job is redelivered to another after the ack wait.
 */
import { join } from 'node:path';
import type {
  BlobStore,
  EpisodeLog,
  HeldJob,
  JobQueue,
  RunIndex,
  SummaryStore,
} from '../../streams/index.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { verifierRules } from '../../verifiers/index.js';
import { createAgent } from '../agents/index.js';
import { recordSummary } from '../analysis/index.js';
import { runEpisode, type EpisodeDeps, type EpisodeProgress, type EpisodeResult } from '../episode/index.js';
import { finishRunIfComplete } from './run-status.js';
import { unpackTask } from './task-pack.js';

export interface WorkerEnv {
  queue: JobQueue;
  log: EpisodeLog;
  blobs: BlobStore;
  runs: RunIndex;
  /** Where an ended episode's summary goes (see actors/analysis/summary.ts); none: not written. */
  summaries?: SummaryStore;
  /** Episode deps except the log writer, which the worker positions per job. */
  deps: Omit<EpisodeDeps, 'openLog'>;
  /** Folder for unpacked task folders and artifacts. */
  home: string;
}

export interface WorkerOptions {
  concurrency: number;
  /** How often to tell JetStream the job is still in progress. */
  heartbeatMs: number;
  /**
   * Stops taking new jobs; running episodes go on to their end. (A worker killed outright leaves its
   * episodes to be resumed elsewhere after the ack wait.)
   */
  signal?: AbortSignal;
  /** Stop after this long without a job (tests, batch jobs); default: never. */
  idleExitMs?: number;
  onProgress?: (p: EpisodeProgress) => void;
  onEpisode?: (r: EpisodeResult, delivery: number) => void;
  log?: (line: string) => void;
}

async function taskFor(env: WorkerEnv, digest: string): Promise<LoadedTask> {
  const dir = join(env.home, 'task-cache', digest);
  await unpackTask(await env.blobs.get(digest), dir);
  // Checked as `submit` checked it, so a job never runs a task its submitter could not have run.
  return loadTask(dir, { verifiers: verifierRules });
}

/** Runs one held job to the end of its episode; acks it unless this worker lost the episode. */
async function runJob(env: WorkerEnv, held: HeldJob, o: WorkerOptions): Promise<EpisodeResult | null> {
  const { job } = held;
  const beat = setInterval(() => held.msg.working(), o.heartbeatMs);
  try {
    const lt = await taskFor(env, job.taskBlob);
    if (job.historyWindow !== undefined) lt.task.history_window = job.historyWindow;
    const prior = await env.log.read(job.episodeId);
    const writer = prior.length ? await env.log.resume(job.episodeId) : env.log.writer(job.episodeId);
    if (prior.length)
      o.log?.(`${job.episodeId}: resuming after ${prior.length} event(s) (delivery ${held.delivery})`);
    const result = await runEpisode(
      lt,
      { ...env.deps, openLog: () => writer },
      {
        episodeId: job.episodeId,
        runId: job.runId,
        agent: createAgent(job.agent, lt),
        artifactsDir: join(env.home, 'runs', job.runId, job.episodeId, 'artifacts'),
        prior,
        ...(o.onProgress ? { onProgress: o.onProgress } : {}),
      },
    );
    if (result.error?.code === 'LOG_WRITE_FAILED') {
      // The log could not be written (NATS down longer than the retries): the episode is not over.
      o.log?.(`${job.episodeId}: cannot write its log; giving the job back to be resumed`);
      held.msg.nak(5_000);
      return null;
    }
    if (result.error?.code === 'LOG_CONFLICT') {
      o.log?.(`${job.episodeId}: another worker took this episode over; stopping without acknowledging`);
      return null;
    }
    held.msg.ack();
    if (env.summaries) {
      const s = await recordSummary(env.log, env.summaries, job.episodeId);
      if (!s.ok) o.log?.(`${job.episodeId}: no summary (analyze will refold its log): ${s.error}`);
    }
    o.onEpisode?.(result, held.delivery);
    await finishRunIfComplete(env.log, env.runs, job.runId);
    return result;
  } finally {
    clearInterval(beat);
  }
}

/** The worker loop; resolves when aborted or idle for `idleExitMs`. */
export async function runWorker(env: WorkerEnv, o: WorkerOptions): Promise<number> {
  let done = 0;
  let lastJobAt = Date.now();
  const slot = async () => {
    while (!o.signal?.aborted) {
      if (o.idleExitMs !== undefined && Date.now() - lastJobAt > o.idleExitMs) return;
      const held = await env.queue.next(1_000).catch(() => null);
      if (!held) continue;
      lastJobAt = Date.now();
      await runJob(env, held, o).catch((e: Error) => {
        o.log?.(`${held.job.episodeId}: job failed before its episode could run: ${e.message}`);
        held.msg.nak(5_000);
      });
      done++;
      lastJobAt = Date.now();
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, slot));
  return done;
}
