/**
 * The work queue: one job per episode on the `ENGILOOP_JOBS` stream (work-queue retention, file
 * storage), pulled by any number of workers on any machines through one durable consumer.
 *
 * A worker holds a job with in-progress acknowledgements (`working()`) while it runs; a job whose
 * worker disappears is redelivered after the ack wait. Submitting the same job twice within the
 * duplicate window stores it once (message id = episode id), and a job delivered twice still makes
 * one episode: the second delivery resumes or finds the episode over.
 */
import {
  AckPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type Consumer,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { ensureStream, withReplicas, type StreamsOptions } from './log.js';
import { validateId } from './subjects.js';

/** Stream holding queued jobs. */
export const JOBS_STREAM = 'ENGILOOP_JOBS';
/** Subject prefix of jobs; the run id is the last token. */
export const JOB_SUBJECT_PREFIX = 'engiloop.job.';
/** The durable consumer every worker pulls from. */
export const WORKERS_CONSUMER = 'workers';

/** Config of `ENGILOOP_JOBS`: work-queue retention (a job is gone once acked), file storage. */
const JOBS_STREAM_CONFIG = {
  name: JOBS_STREAM,
  subjects: [`${JOB_SUBJECT_PREFIX}>`],
  retention: RetentionPolicy.Workqueue,
  storage: StorageType.File,
  duplicate_window: nanos(120_000),
};

/**
 * Creates `ENGILOOP_JOBS` or updates it to {@link JOBS_STREAM_CONFIG}, with `o.replicas` copies
 * (see {@link StreamsOptions}); the workers' consumer inherits the stream's replicas. Idempotent.
 */
export async function ensureJobsStream(jsm: JetStreamManager, o: StreamsOptions = {}): Promise<void> {
  await ensureStream(jsm, withReplicas(JOBS_STREAM_CONFIG, o));
}

/** One episode to run. Stored as JSON (small, and readable with the `nats` CLI). */
export interface Job {
  v: 1;
  runId: string;
  episodeId: string;
  taskId: string;
  /** Agent spec, e.g. `scripted`. */
  agent: string;
  /** SHA-256 of the task folder's tar in the object store: workers need no shared checkout. */
  taskBlob: string;
  /** Overrides the task's `history_window` (optional; absent in older jobs). */
  historyWindow?: number;
}

/** Options of {@link JobQueue.open}; `replicas` as in {@link StreamsOptions}. */
export interface JobQueueOptions extends StreamsOptions {
  /** How long a job may go without an ack or `working()` before it is redelivered. Default 30 s. */
  ackWaitMs?: number;
  /** Deliveries before a job is given up. Default 20. */
  maxDeliver?: number;
}

/** A job as a worker holds it. */
export interface HeldJob {
  job: Job;
  /** 1 for the first delivery, 2+ when redelivered (its worker died or gave it back). */
  delivery: number;
  msg: JsMsg;
}

/** The queue as submitters and workers see it. Open with {@link JobQueue.open}. */
export class JobQueue {
  private constructor(
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    private readonly consumer: Consumer,
  ) {}

  /** Creates (or updates) the stream and the workers' consumer. */
  static async open(nc: NatsConnection, o: JobQueueOptions = {}): Promise<JobQueue> {
    const jsm = await jetstreamManager(nc);
    await ensureJobsStream(jsm, o);
    const ccfg = {
      durable_name: WORKERS_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(o.ackWaitMs ?? 30_000),
      max_deliver: o.maxDeliver ?? 20,
    };
    await jsm.consumers
      .add(JOBS_STREAM, ccfg)
      .catch(async () => jsm.consumers.update(JOBS_STREAM, WORKERS_CONSUMER, ccfg));
    const js = jetstream(nc);
    return new JobQueue(js, jsm, await js.consumers.get(JOBS_STREAM, WORKERS_CONSUMER));
  }

  /** Enqueues a job; resubmitting the same episode within two minutes is deduplicated. */
  async submit(job: Job): Promise<{ duplicate: boolean }> {
    validateId('episode', job.episodeId);
    const ack = await this.js.publish(`${JOB_SUBJECT_PREFIX}${job.runId}`, JSON.stringify(job), {
      msgID: job.episodeId,
    });
    return { duplicate: ack.duplicate };
  }

  /** Waits up to `expiresMs` for the next job; null when none came. */
  async next(expiresMs = 5_000): Promise<HeldJob | null> {
    const msg = await this.consumer.next({ expires: expiresMs });
    if (!msg) return null;
    return {
      job: JSON.parse(new TextDecoder().decode(msg.data)) as Job,
      delivery: msg.info.deliveryCount,
      msg,
    };
  }

  /** Jobs waiting (not yet delivered) and delivered but not yet acknowledged. */
  async pending(): Promise<{ waiting: number; inProgress: number }> {
    const info = await this.jsm.consumers.info(JOBS_STREAM, WORKERS_CONSUMER);
    return { waiting: info.num_pending, inProgress: info.num_ack_pending };
  }
}
