/**
 * Content-addressed blobs in the JetStream Object Store bucket `engiloop-blobs`, and moving large
 * command outputs and observation texts out of events into it.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { TimeoutError, type NatsConnection } from '@nats-io/nats-core';
import { Objm, StorageType, type ObjectStore } from '@nats-io/obj';
import type { EpisodeEvent } from './events.js';
import { BlobDigestError, BlobNotFoundError } from './errors.js';
import { waitForStreamLeader, type StreamsOptions } from './log.js';
import { isTransient, retryTimeouts, retryTransient } from './nats-faults.js';

/** Object Store bucket holding blobs. */
export const BLOB_BUCKET = 'engiloop-blobs';
/** Texts longer than this many UTF-8 bytes leave the event (default of {@link externalize}). */
const BLOB_INLINE_LIMIT = 64 * 1024;
/** UTF-8 bytes kept inline as a preview when a text is externalised. */
const BLOB_PREVIEW_BYTES = 16 * 1024;

const DIGEST = /^[0-9a-f]{64}$/;

/** A put of content already stored refreshes its last use at most this often (gc's grace must exceed it). */
const TOUCH_EVERY_MS = 10 * 60_000;

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
      // Already stored: mark it used, so `engiloop gc` counts its grace period from this put (the
      // event naming it comes next). Best effort: a bucket at its byte cap refuses the write.
      else if (Date.now() - BlobStore.#lastUsed(info) > TOUCH_EVERY_MS)
        await this.touch(digest).catch(() => false);
    });
    return digest;
  }

  /**
   * Stores the file at `path` under `digest` (its SHA-256, computed by the caller while writing it),
   * streaming it: memory stays flat whatever its size. Skipped when present; retried like `put`.
   */
  async putFile(path: string, digest: string): Promise<string> {
    await retryTransient(async () => {
      const info = await this.os.info(digest);
      if (info && !info.deleted) {
        if (Date.now() - BlobStore.#lastUsed(info) > TOUCH_EVERY_MS)
          await this.touch(digest).catch(() => false);
        return;
      }
      const rs = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
      await this.os.put({ name: digest }, rs);
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
   *   attempts (see `retryTimeouts` in `nats-faults.ts`).
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

  /*
   * Retention (`gc.ts`): listing, ages, deletion and the bucket's byte cap. Subject and stream names
   * follow the Object Store layout of NATS ADR-20: stream `OBJ_<bucket>`, chunks on
   * `$O.<bucket>.C.<nuid>`, metadata on `$O.<bucket>.M.<base64url(name), padded>`.
   */

  /**
   * Every stored object, deleted ones left out: its name (a digest), size in bytes, and when it was
   * last written or {@link touch}ed (ms since the epoch, by the writer's clock). Reads metadata only.
   */
  async list(): Promise<{ digest: string; bytes: number; lastUsed: number }[]> {
    const infos = await retryTransient(() => this.os.list());
    return infos
      .filter((i) => !i.deleted)
      .map((i) => ({ digest: i.name, bytes: i.size, lastUsed: BlobStore.#lastUsed(i) }));
  }

  /** Size and last use (as in {@link list}) of one object, or null when absent. */
  async stat(digest: string): Promise<{ digest: string; bytes: number; lastUsed: number } | null> {
    const i = await retryTransient(() => this.os.info(digest));
    return i && !i.deleted ? { digest, bytes: i.size, lastUsed: BlobStore.#lastUsed(i) } : null;
  }

  /**
   * Records that an existing object was used at `at` (metadata `touched`), so `gc` counts its grace
   * period from then; false when absent. For a put of content already stored, which uploads nothing.
   */
  async touch(digest: string, at = Date.now()): Promise<boolean> {
    const i = await retryTransient(() => this.os.info(digest));
    if (!i || i.deleted) return false;
    const metadata = { ...i.metadata, touched: new Date(at).toISOString() };
    await retryTransient(() => this.os.update(digest, { metadata, options: i.options }));
    return true;
  }

  /**
   * Removes an object; returns the bytes freed, or null when it was absent or written meanwhile.
   * Its metadata goes first, up to the revision read, then its chunks; unlike `ObjectStore.delete`
   * (which first publishes a deletion marker) this works in a bucket at its byte cap, and leaves no
   * marker. A {@link touch} or put landing meanwhile is seen by reading the metadata again: a touch
   * keeps the object whole; a new upload keeps its own chunks.
   */
  async delete(digest: string, jsm: JetStreamManager): Promise<number | null> {
    if (!DIGEST.test(digest)) return null;
    const i = await retryTransient(() => this.os.info(digest));
    if (!i) return null;
    const stream = `OBJ_${i.bucket}`;
    const b64 = Buffer.from(digest).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    const meta = `$O.${i.bucket}.M.${b64}`;
    const purgeMeta = (upTo: number) =>
      retryTransient(() => jsm.streams.purge(stream, { filter: meta, seq: upTo + 1 }));
    const sameObject = async () => {
      const j = await retryTransient(() => this.os.info(digest));
      return j && !j.deleted && j.nuid === i.nuid ? j : null;
    };
    await purgeMeta(i.revision);
    if (i.deleted) return null; // a deletion marker left by `ObjectStore.delete`: now gone too
    if (await sameObject()) return null; // touched meanwhile: still in use, still whole
    await retryTransient(() => jsm.streams.purge(stream, { filter: `$O.${i.bucket}.C.${i.nuid}` }));
    // A touch that read the metadata before the first purge and wrote it after the check above
    // would point at the purged chunks: remove it, so the object is absent rather than broken.
    const late = await sameObject();
    if (late) await purgeMeta(late.revision);
    return i.size;
  }

  /**
   * The bucket's use and limits: bytes stored, the byte cap (`max_bytes`, -1 for none) and the age
   * limit (`max_age` in ms, 0 for none; engiloop never sets one).
   */
  async limits(): Promise<{ bytes: number; maxBytes: number; maxAgeMs: number }> {
    const { streamInfo } = await retryTransient(() => this.os.status());
    return {
      bytes: streamInfo.state.bytes,
      maxBytes: streamInfo.config.max_bytes,
      maxAgeMs: Math.round(streamInfo.config.max_age / 1e6),
    };
  }

  /**
   * Sets the bucket's byte cap (`max_bytes`; -1 removes it). The bucket discards new writes, never
   * old ones: past the cap a put fails (`maximum bytes exceeded`) and nothing stored is lost; the cap
   * may be set below what is stored already. {@link delete} still works there.
   */
  async setMaxBytes(jsm: JetStreamManager, maxBytes: number): Promise<void> {
    const { streamInfo } = await retryTransient(() => this.os.status());
    await jsm.streams.update(streamInfo.config.name, { max_bytes: maxBytes });
    await waitForStreamLeader(jsm, streamInfo.config.name);
  }

  /** Last write or touch of an object's metadata, in ms since the epoch. */
  static #lastUsed(i: { mtime: string; metadata?: Record<string, string> }): number {
    const touched = i.metadata?.touched ? Date.parse(i.metadata.touched) : NaN;
    const mtime = Date.parse(i.mtime);
    return Math.max(Number.isNaN(mtime) ? 0 : mtime, Number.isNaN(touched) ? 0 : touched);
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
