/**
 * The episode log on JetStream: one subject per episode (`engiloop.ep.<episodeId>`) in stream
 * `ENGILOOP_EVENTS`, one MessagePack event per message (see `codec.ts`).
 */
import { DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import type { JetStreamApiError, JetStreamClient, JetStreamManager, StreamConfig } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { decodeEvent, type DecodeContext } from './codec.js';
import type { EpisodeEvent } from './events.js';
import { LogConflictError } from './errors.js';
import { retryTimeouts } from './nats-faults.js';
import { readSubject, validateId, type StoredRecord } from './subjects.js';
import { EpisodeWriter, type WriterPosition } from './writer.js';

/** Stream holding every episode's events. */
export const EVENTS_STREAM = 'ENGILOOP_EVENTS';
/** Stream holding run records (see `runs.ts`). */
export const RUNS_STREAM = 'ENGILOOP_RUNS';
/** Subject prefix of episode logs; the episode id is the last token. */
export const EPISODE_SUBJECT_PREFIX = 'engiloop.ep.';
/** Subject prefix of run records. */
export const RUN_SUBJECT_PREFIX = 'engiloop.run.';
/** Stream holding episode summaries (see `summaries.ts`). */
export const SUMMARIES_STREAM = 'ENGILOOP_SUMMARIES';
/** Subject prefix of episode summaries: `engiloop.summary.<runId>.<episodeId>`. */
export const SUMMARY_SUBJECT_PREFIX = 'engiloop.summary.';

const DUPLICATE_WINDOW_MS = 2 * 60_000;

/** Config of `ENGILOOP_EVENTS`: file storage, no limits (nothing is ever discarded), no deletes. */
const EVENTS_STREAM_CONFIG: Partial<StreamConfig> & { name: string } = {
  name: EVENTS_STREAM,
  subjects: [`${EPISODE_SUBJECT_PREFIX}>`],
  storage: StorageType.File,
  retention: RetentionPolicy.Limits,
  discard: DiscardPolicy.Old,
  duplicate_window: nanos(DUPLICATE_WINDOW_MS),
  allow_direct: true,
  deny_delete: true,
};

/** Config of `ENGILOOP_RUNS`. */
const RUNS_STREAM_CONFIG: Partial<StreamConfig> & { name: string } = {
  name: RUNS_STREAM,
  subjects: [`${RUN_SUBJECT_PREFIX}>`],
  storage: StorageType.File,
  retention: RetentionPolicy.Limits,
  discard: DiscardPolicy.Old,
  duplicate_window: nanos(DUPLICATE_WINDOW_MS),
  allow_direct: true,
};

/** Config of `ENGILOOP_SUMMARIES`: derived data, one subject per episode, the latest kept. */
const SUMMARIES_STREAM_CONFIG: Partial<StreamConfig> & { name: string } = {
  name: SUMMARIES_STREAM,
  subjects: [`${SUMMARY_SUBJECT_PREFIX}>`],
  storage: StorageType.File,
  retention: RetentionPolicy.Limits,
  discard: DiscardPolicy.Old,
  max_msgs_per_subject: 1,
  allow_direct: true,
};

const STREAM_NAME_IN_USE = 10058;

/** Options of everything that creates engiloop streams (events, runs, jobs, blobs). */
export interface StreamsOptions {
  /**
   * Copies of each stream a NATS cluster keeps (1, 3 or 5; at most the cluster's size). A new
   * stream gets this many; an existing one is scaled to it (nats-server ≥ 2.10 can do so live).
   * Default: unset, meaning 1 for a new stream and an existing stream's count left as it is (so a
   * client opened without it never scales a replicated stream down).
   */
  replicas?: number;
}

/** `cfg` with `num_replicas` when `o.replicas` is set, else `cfg` itself. */
export function withReplicas<T extends Partial<StreamConfig>>(cfg: T, o: StreamsOptions = {}): T {
  return o.replicas === undefined ? cfg : { ...cfg, num_replicas: o.replicas };
}

/**
 * Creates `cfg`'s stream, or updates it to `cfg` when it exists with another config. The update
 * merges into the stored config, so fields `cfg` leaves out (such as `num_replicas`) keep their value.
 * After an update it waits for the stream to have a leader (see {@link waitForStreamLeader}).
 */
export async function ensureStream(
  jsm: JetStreamManager,
  cfg: Partial<StreamConfig> & { name: string },
): Promise<void> {
  try {
    await jsm.streams.add(cfg);
  } catch (err) {
    if ((err as JetStreamApiError).code !== STREAM_NAME_IN_USE) throw err;
    await jsm.streams.update(cfg.name, cfg);
    await waitForStreamLeader(jsm, cfg.name);
  }
}

/**
 * Waits (up to `timeoutMs`, default 15 s; then returns anyway) until a clustered stream has a
 * leader. A stream whose replicas just changed has none for about a second, and nats-server 2.10
 * never answers a stream update sent in that time (the client times out). Returns at once on a
 * single server.
 */
export async function waitForStreamLeader(
  jsm: JetStreamManager,
  name: string,
  timeoutMs = 15_000,
): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const { cluster } = await jsm.streams.info(name);
    if (!cluster || cluster.leader || Date.now() - t0 > timeoutMs) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Creates the events, runs and summaries streams, or updates them to the configs above when they exist, with `o.replicas`
 * copies (see {@link StreamsOptions}). Idempotent.
 */
export async function ensureStreams(jsm: JetStreamManager, o: StreamsOptions = {}): Promise<void> {
  for (const cfg of [EVENTS_STREAM_CONFIG, RUNS_STREAM_CONFIG, SUMMARIES_STREAM_CONFIG])
    await ensureStream(jsm, withReplicas(cfg, o));
}

/** Subject of an episode's log. @throws InvalidLogIdError `INVALID_LOG_ID`. */
function episodeSubject(episodeId: string): string {
  return EPISODE_SUBJECT_PREFIX + validateId('episode', episodeId);
}

/** A stored event with its stream metadata, for tooling. */
export interface RawEpisodeRecord extends StoredRecord {
  /** 1-based position parsed from the message id `<episodeId>:<n>` (null if absent). */
  n: number | null;
}

/**
 * Reads and writes episode logs.
 *
 * @example
 * ```ts
 * const log = await EpisodeLog.open(nc);
 * const w = log.writer('ep-1');
 * await w.append(started);
 * const events = await log.read('ep-1');
 * ```
 */
export class EpisodeLog {
  constructor(
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
  ) {}

  /** Builds the JetStream clients for `nc` and ensures the streams exist (`o`: their replicas). */
  static async open(nc: NatsConnection, o: StreamsOptions = {}): Promise<EpisodeLog> {
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, o);
    return new EpisodeLog(jetstream(nc), jsm);
  }

  /** A writer for `episodeId`; by default for a new episode. See {@link EpisodeLog.resume}. */
  writer(episodeId: string, pos: WriterPosition = {}): EpisodeWriter {
    return new EpisodeWriter(
      { js: this.js, jsm: this.jsm, stream: EVENTS_STREAM },
      episodeId,
      episodeSubject(episodeId),
      pos,
    );
  }

  /** A writer positioned after the episode's last stored event (a fresh one if it has none). */
  async resume(episodeId: string): Promise<EpisodeWriter> {
    const last = await this.jsm.direct.getMessage(EVENTS_STREAM, { last_by_subj: episodeSubject(episodeId) });
    if (!last) return this.writer(episodeId);
    const n = parseN(last.header?.get('Nats-Msg-Id'));
    // Our writers always set the id; without it the subject was written by something else.
    if (n === null)
      throw new LogConflictError('episode', episodeId, last.seq, 'last event has no message id');
    return this.writer(episodeId, { expectedLastSeq: last.seq, n });
  }

  /** The episode's last event (decoded), or null when it has none. Cheap: one direct get. */
  async last(episodeId: string): Promise<EpisodeEvent | null> {
    const m = await this.jsm.direct.getMessage(EVENTS_STREAM, { last_by_subj: episodeSubject(episodeId) });
    return m ? decodeEvent(m.data, { subject: m.subject, seq: m.seq }) : null;
  }

  /** Every event of the episode, in order, decoded and upcast; `[]` for an unknown episode. */
  async read(episodeId: string, opts: Pick<DecodeContext, 'upcasters'> = {}): Promise<EpisodeEvent[]> {
    const raw = await this.readRaw(episodeId);
    return raw.map((r) => decodeEvent(r.data, { subject: r.subject, seq: r.seq, ...opts }));
  }

  /** Every stored message of the episode, undecoded, with stream sequences. */
  async readRaw(episodeId: string): Promise<RawEpisodeRecord[]> {
    const subject = episodeSubject(episodeId);
    const recs = await retryTimeouts(() => readSubject(this.js, this.jsm, EVENTS_STREAM, subject));
    return recs.map((r) => ({ ...r, n: parseN(r.msgId) }));
  }

  /** Ids of the episodes present, sorted, optionally only those starting with `prefix`. */
  async listEpisodes(prefix = ''): Promise<string[]> {
    const info = await this.jsm.streams.info(EVENTS_STREAM, {
      subjects_filter: `${EPISODE_SUBJECT_PREFIX}>`,
    });
    return Object.keys(info.state.subjects ?? {})
      .map((s) => s.slice(EPISODE_SUBJECT_PREFIX.length))
      .filter((id) => id.startsWith(prefix))
      .sort();
  }
}

function parseN(msgId: string | null | undefined): number | null {
  const m = msgId ? /:(\d+)$/.exec(msgId) : null;
  return m ? Number(m[1]) : null;
}
