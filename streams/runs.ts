/**
 * Run records on `ENGILOOP_RUNS`: `run.started` then `run.finished` on `engiloop.run.<runId>`.
 *
 * Encoded as JSON, not MessagePack: two small messages per run, so speed is irrelevant, while JSON
 * reads directly in `nats stream view` / `nats stream get` and in any tool, and `results` is an
 * arbitrary JSON-shaped summary anyway.
 *
 * WARNING: stored format; `v` is bumped on a change and readers handle every older `v`.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { CodecError, LogConflictError, RunNotFoundError } from './errors.js';
import { ensureStreams, RUN_SUBJECT_PREFIX, RUNS_STREAM, type StreamsOptions } from './log.js';
import { retryTimeouts } from './nats-faults.js';
import { mapPublishError, readSubject, validateId } from './subjects.js';

/** Schema version of run records. */
const RUN_RECORD_VERSION = 1 as const;

/** Written when a run begins. */
export interface RunStarted {
  type: 'run.started';
  v: number;
  runId: string;
  /** Suite (task set) name. */
  suite: string;
  /** Agent spec. */
  agent: string;
  /** Episode ids the run will produce. */
  episodes: string[];
  /** ms since the epoch. */
  startedAt: number;
}

/** Written once when a run ends. */
export interface RunFinished {
  type: 'run.finished';
  v: number;
  runId: string;
  /** ms since the epoch, from the index's clock. */
  finishedAt: number;
  /** Summary of the run (scores per episode, totals), JSON-shaped. */
  results: unknown;
}

/** A run as stored. */
export interface RunRecord {
  started: RunStarted;
  /** Null while the run is in progress (or was abandoned). */
  finished: RunFinished | null;
}

/** Index of runs. `clock` (default `Date.now`) stamps `finishedAt`. */
export class RunIndex {
  constructor(
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Builds the JetStream clients for `nc` and ensures the streams exist (`o`: their replicas). */
  static async open(nc: NatsConnection, clock?: () => number, o: StreamsOptions = {}): Promise<RunIndex> {
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, o);
    return new RunIndex(jetstream(nc), jsm, clock);
  }

  /**
   * Records the start of a run. A retry within two minutes is deduplicated.
   *
   * @throws LogConflictError `LOG_CONFLICT` when the run id was already started.
   */
  async start(runId: string, info: Omit<RunStarted, 'type' | 'v' | 'runId'>): Promise<RunStarted> {
    const rec: RunStarted = { type: 'run.started', v: RUN_RECORD_VERSION, runId, ...info };
    await this.#publish(runId, `${runId}:started`, rec, 0);
    return rec;
  }

  /**
   * Records the end of a run.
   *
   * @throws RunNotFoundError `RUN_NOT_FOUND` when the run was never started.
   * @throws LogConflictError `LOG_CONFLICT` when it already finished.
   */
  async finish(runId: string, results: unknown): Promise<RunFinished> {
    const last = await this.jsm.direct.getMessage(RUNS_STREAM, { last_by_subj: runSubject(runId) });
    if (!last) throw new RunNotFoundError(runId);
    const prev = decodeRun(last.data, last.seq);
    const rec: RunFinished = {
      type: 'run.finished',
      v: RUN_RECORD_VERSION,
      runId,
      finishedAt: this.clock(),
      results,
    };
    if (prev.type === 'run.finished')
      throw new LogConflictError('run', runId, last.seq, 'run already finished');
    await this.#publish(runId, `${runId}:finished`, rec, last.seq);
    return rec;
  }

  /** The run's records, or null for an unknown run. */
  async get(runId: string): Promise<RunRecord | null> {
    const subject = runSubject(runId);
    const first = await this.jsm.direct.getMessage(RUNS_STREAM, { seq: 1, next_by_subj: subject });
    if (!first) return null;
    const started = decodeRun(first.data, first.seq) as RunStarted;
    const last = await this.jsm.direct.getMessage(RUNS_STREAM, { last_by_subj: subject });
    const finished = last && last.seq !== first.seq ? (decodeRun(last.data, last.seq) as RunFinished) : null;
    return { started, finished };
  }

  /** Run ids, newest start first (by stream order of their `run.started`). */
  async list(): Promise<string[]> {
    const recs = await retryTimeouts(() =>
      readSubject(this.js, this.jsm, RUNS_STREAM, `${RUN_SUBJECT_PREFIX}>`, { headersOnly: true }),
    );
    const seen = new Set<string>();
    for (const r of recs) seen.add(r.subject.slice(RUN_SUBJECT_PREFIX.length));
    return [...seen].reverse();
  }

  async #publish(
    runId: string,
    msgID: string,
    rec: RunStarted | RunFinished,
    expected: number,
  ): Promise<void> {
    try {
      await this.js.publish(runSubject(runId), JSON.stringify(rec), {
        msgID,
        expect: { lastSubjectSequence: expected },
      });
    } catch (err) {
      throw mapPublishError('run', runId, expected, err);
    }
  }
}

/** Subject of a run's records. @throws InvalidLogIdError `INVALID_LOG_ID`. */
function runSubject(runId: string): string {
  return RUN_SUBJECT_PREFIX + validateId('run', runId);
}

function decodeRun(data: Uint8Array, seq: number): RunStarted | RunFinished {
  try {
    const rec = JSON.parse(Buffer.from(data).toString('utf8')) as RunStarted | RunFinished;
    if (rec.type === 'run.started' || rec.type === 'run.finished') return rec;
  } catch (err) {
    throw new CodecError('EVENT_DECODE', `run record at ${RUNS_STREAM} seq ${seq}: not JSON`, { cause: err });
  }
  throw new CodecError('EVENT_DECODE', `run record at ${RUNS_STREAM} seq ${seq}: unknown type`);
}
