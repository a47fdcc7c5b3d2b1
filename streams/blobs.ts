/**
 * Content-addressed blobs in the JetStream Object Store bucket `engiloop-blobs`, and moving large
 * command outputs and observation texts out of events into it.
 */
import { createHash } from 'node:crypto';
import { jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { TimeoutError, type NatsConnection } from '@nats-io/nats-core';
import { Objm, StorageType, type ObjectStore } from '@nats-io/obj';
import type { EpisodeEvent } from './events.js';
import { BlobDigestError, BlobNotFoundError } from './errors.js';
import {
  isTransient,
  retryTimeouts,
  retryTransient,
  waitForStreamLeader,
  type StreamsOptions,
} from './log.js';

/** Object Store bucket holding blobs. */
export const BLOB_BUCKET = 'engiloop-blobs';
/** Texts longer than this many UTF-8 bytes leave the event (default of {@link externalize}). */
export const BLOB_INLINE_LIMIT = 64 * 1024;
/** UTF-8 bytes kept inline as a preview when a text is externalised. */
export const BLOB_PREVIEW_BYTES = 16 * 1024;

const DIGEST = /^[0-9a-f]{64}$/;

/** SHA-256 of `bytes`, lowercase hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * A read of one object that has not finished by then is abandoned and tried again: under load the
 * client's ordered consumer was seen to stall forever on a blob it had just stored.
 */
const GET_DEADLINE_MS = 30_000;

/** `p`, or a `TimeoutError` after `ms` (so `retryTimeouts` tries again). */
function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError()), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** Blobs named by the SHA-256 of their bytes; a put of existing content uploads nothing. */
export class BlobStore {
  constructor(readonly os: ObjectStore) {}

  /**
   * Opens (creating if needed) the file-backed bucket. With `o.replicas`, a new bucket gets that many
   * copies and an existing one is scaled to it; without, an existing bucket keeps its count.
   */
  static async open(
    nc: NatsConnection | JetStreamClient,
    bucket = BLOB_BUCKET,
    o: StreamsOptions = {},
  ): Promise<BlobStore> {
    const replicas = o.replicas ?? 1;
    // create() opens an existing bucket as it is, whatever `replicas` says.
    const os = await new Objm(nc).create(bucket, { storage: StorageType.File, replicas });
    if (o.replicas !== undefined) {
      const { streamInfo } = await os.status();
      if (streamInfo.config.num_replicas !== replicas) {
        const jsm = 'jetstreamManager' in nc ? await nc.jetstreamManager() : await jetstreamManager(nc);
        await jsm.streams.update(streamInfo.config.name, { num_replicas: replicas });
        await waitForStreamLeader(jsm, streamInfo.config.name);
      }
    }
    return new BlobStore(os);
  }

  /**
   * Stores `bytes` under their digest (skipped when present); returns the digest. Retried through a
   * short NATS outage (`retryTransient`): storing the same bytes again is harmless.
   */
  async put(bytes: Uint8Array): Promise<string> {
    const digest = sha256Hex(bytes);
    await retryTransient(async () => {
      const info = await this.os.info(digest);
      if (!info || info.deleted) await this.os.putBlob({ name: digest }, bytes);
    });
    return digest;
  }

  /** True when an object named `digest` exists. Retried through a short NATS outage. */
  async has(digest: string): Promise<boolean> {
    const info = await retryTransient(() => this.os.info(digest));
    return !!info && !info.deleted;
  }

  /**
   * The bytes stored under `digest`, after checking they hash to it.
   *
   * @throws BlobNotFoundError `BLOB_NOT_FOUND` when absent (or `digest` is not 64 hex chars).
   * @throws BlobDigestError `BLOB_DIGEST_MISMATCH` when the bytes do not hash to `digest`.
   * @throws TimeoutError (from `@nats-io/nats-core`) when NATS did not answer in `READ_ATTEMPTS`
   *   attempts (see `retryTimeouts` in `log.ts`).
   */
  async get(digest: string): Promise<Buffer> {
    if (!DIGEST.test(digest)) throw new BlobNotFoundError(digest);
    let bytes: Uint8Array | null;
    try {
      bytes = await retryTransient(() =>
        retryTimeouts(() => withDeadline(this.os.getBlob(digest), GET_DEADLINE_MS)),
      );
    } catch (err) {
      // A timeout or an election is NATS being unavailable, not a bad blob.
      if (isTransient(err)) throw err;
      // The client checks its own chunk digest; a failure there is corruption too.
      throw new BlobDigestError(digest, null, { cause: err });
    }
    if (!bytes) throw new BlobNotFoundError(digest);
    const actual = sha256Hex(bytes);
    if (actual !== digest) throw new BlobDigestError(digest, actual);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Stores a UTF-8 text; returns its digest. */
  putText(text: string): Promise<string> {
    return this.put(Buffer.from(text, 'utf8'));
  }

  /** Reads a UTF-8 text stored by {@link putText}. */
  async getText(digest: string): Promise<string> {
    return (await this.get(digest)).toString('utf8');
  }
}

/** Options of {@link externalize}. */
export interface ExternalizeOptions {
  /** Texts longer than this many UTF-8 bytes move to the store. Default {@link BLOB_INLINE_LIMIT}. */
  limit?: number;
  /** UTF-8 bytes kept inline. Default {@link BLOB_PREVIEW_BYTES} (capped at `limit`). */
  previewBytes?: number;
}

/**
 * Moves large texts out of an event before it is appended: `action.executed` stdout/stderr (digests
 * in `result.blobs`) and `observation.recorded` text (digest in `textBlob`). The inline text keeps a
 * leading preview. Other events, and texts within the limit, are returned unchanged. Never mutates.
 */
export async function externalize(
  event: EpisodeEvent,
  blobs: BlobStore,
  opts: ExternalizeOptions = {},
): Promise<EpisodeEvent> {
  const limit = opts.limit ?? BLOB_INLINE_LIMIT;
  const keep = Math.min(opts.previewBytes ?? BLOB_PREVIEW_BYTES, limit);
  const big = (s: string): boolean => Buffer.byteLength(s, 'utf8') > limit;
  if (event.type === 'action.executed') {
    const { stdout, stderr } = event.result;
    if (!big(stdout) && !big(stderr)) return event;
    const result = { ...event.result, blobs: { ...event.result.blobs } };
    if (big(stdout))
      [result.stdout, result.blobs.stdout] = [preview(stdout, keep), await blobs.putText(stdout)];
    if (big(stderr))
      [result.stderr, result.blobs.stderr] = [preview(stderr, keep), await blobs.putText(stderr)];
    return { ...event, result };
  }
  if (event.type === 'observation.recorded' && big(event.text)) {
    return { ...event, text: preview(event.text, keep), textBlob: await blobs.putText(event.text) };
  }
  return event;
}

/** Restores the full texts that {@link externalize} moved out (digests are kept). Never mutates. */
export async function internalize(event: EpisodeEvent, blobs: BlobStore): Promise<EpisodeEvent> {
  if (event.type === 'action.executed' && event.result.blobs) {
    const { stdout, stderr } = event.result.blobs;
    const result = { ...event.result };
    if (stdout) result.stdout = await blobs.getText(stdout);
    if (stderr) result.stderr = await blobs.getText(stderr);
    return { ...event, result };
  }
  if (event.type === 'observation.recorded' && event.textBlob) {
    return { ...event, text: await blobs.getText(event.textBlob) };
  }
  return event;
}

/** The first `bytes` UTF-8 bytes of `s`, not splitting a character. */
function preview(s: string, bytes: number): string {
  const buf = Buffer.from(s, 'utf8');
  let end = Math.min(bytes, buf.length);
  // Back up over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}
