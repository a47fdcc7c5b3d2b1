/**
 * Errors raised by `streams/`: the NATS server, connection, codec, episode log, run index, blob
 * store and retention settings. Each carries one of {@link StreamsErrorCode}; callers branch on the
 * predicates below. Faults of NATS itself (timeouts, elections) are nats.js's own error classes,
 * recognised by `isTransient` in `nats-faults.ts`.
 */
import { EngiloopError } from '../core/index.js';

/** Codes of `NatsServerError`. */
export type NatsServerErrorCode = 'NATS_SERVER_MISSING' | 'NATS_SERVER_EXITED' | 'NATS_SERVER_TIMEOUT';

/** Every code an error raised under `streams/` carries. */
export type StreamsErrorCode =
  /** `nats-server` is not on PATH, exited early, or was not ready in time. */
  | NatsServerErrorCode
  /** The first connect to NATS failed (retryable). */
  | 'NATS_UNREACHABLE'
  /** Bytes that do not decode to an event or run record. */
  | 'EVENT_DECODE'
  /** An event that cannot be encoded. */
  | 'EVENT_ENCODE'
  /** An event version no upcaster brings to the current one. */
  | 'EVENT_VERSION_UNSUPPORTED'
  /** An episode or run id that is not one subject token. */
  | 'INVALID_LOG_ID'
  /** Another writer appended to the same log first (never retryable). */
  | 'LOG_CONFLICT'
  /** A publish failed for another reason (retryable). */
  | 'LOG_WRITE'
  /** A run record for a run that was never started. */
  | 'RUN_NOT_FOUND'
  /** No blob under this digest. */
  | 'BLOB_NOT_FOUND'
  /** A blob's bytes do not hash to its name. */
  | 'BLOB_DIGEST_MISMATCH'
  /** Retention settings that make no sense. */
  | 'RETENTION_INVALID';

/** Base of the classes below: a code outside {@link StreamsErrorCode} fails typecheck. */
abstract class StreamsErrorBase<C extends StreamsErrorCode> extends EngiloopError<C> {}

/** `nats-server` could not be started: missing binary, early exit, or not ready in time. */
export class NatsServerError extends StreamsErrorBase<NatsServerErrorCode> {
  override readonly name = 'NatsServerError';
  /** Last lines the server wrote to stderr before failing, when it ran at all. */
  readonly stderrTail: string[];

  constructor(
    code: NatsServerErrorCode,
    message: string,
    opts: { cause?: unknown; stderrTail?: string[] } = {},
  ) {
    super(code, message, { cause: opts.cause, retryable: code === 'NATS_SERVER_TIMEOUT' });
    this.stderrTail = opts.stderrTail ?? [];
  }
}

/** The NATS server could not be reached (`NATS_UNREACHABLE`); retrying later can help. */
export class NatsUnreachableError extends StreamsErrorBase<'NATS_UNREACHABLE'> {
  override readonly name = 'NatsUnreachableError';
  constructor(url: string, opts: { cause?: unknown } = {}) {
    const why = opts.cause instanceof Error ? `: ${opts.cause.message}` : '';
    super('NATS_UNREACHABLE', `cannot connect to NATS at ${url}${why}`, {
      cause: opts.cause,
      retryable: true,
    });
  }
}

/** Bytes that do not decode to an episode event (`EVENT_DECODE`), or an event that cannot be encoded (`EVENT_ENCODE`). */
export class CodecError extends StreamsErrorBase<'EVENT_DECODE' | 'EVENT_ENCODE'> {
  override readonly name = 'CodecError';
  constructor(code: 'EVENT_DECODE' | 'EVENT_ENCODE', message: string, opts: { cause?: unknown } = {}) {
    super(code, message, opts);
  }
}

/** An event's version cannot be brought to the current one (`EVENT_VERSION_UNSUPPORTED`). */
export class UpcastError extends StreamsErrorBase<'EVENT_VERSION_UNSUPPORTED'> {
  override readonly name = 'UpcastError';
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('EVENT_VERSION_UNSUPPORTED', message, opts);
  }
}

/** An episode or run id that is not `[A-Za-z0-9_-]+` (`INVALID_LOG_ID`). */
export class InvalidLogIdError extends StreamsErrorBase<'INVALID_LOG_ID'> {
  override readonly name = 'InvalidLogIdError';
  constructor(kind: 'episode' | 'run', id: string) {
    super('INVALID_LOG_ID', `invalid ${kind} id ${JSON.stringify(id)}: expected [A-Za-z0-9_-]+`);
  }
}

/**
 * Another writer appended to the same log first (`LOG_CONFLICT`). The writer that gets this lost the
 * race and must stop: it is never retryable.
 */
export class LogConflictError extends StreamsErrorBase<'LOG_CONFLICT'> {
  override readonly name = 'LogConflictError';
  /** Episode or run id. */
  readonly id: string;
  /** Stream sequence this writer expected to be the last one of the subject. */
  readonly expectedSeq: number;

  constructor(
    kind: 'episode' | 'run',
    id: string,
    expectedSeq: number,
    detail: string,
    opts: { cause?: unknown } = {},
  ) {
    super(
      'LOG_CONFLICT',
      `${kind} ${id}: another writer appended first (expected last seq ${expectedSeq}; ${detail})`,
      {
        cause: opts.cause,
      },
    );
    this.id = id;
    this.expectedSeq = expectedSeq;
  }
}

/** A publish to JetStream failed for a reason other than a conflict (`LOG_WRITE`); a retry may help. */
export class LogWriteError extends StreamsErrorBase<'LOG_WRITE'> {
  override readonly name = 'LogWriteError';
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('LOG_WRITE', message, { cause: opts.cause, retryable: true });
  }
}

/** A run record was asked for a run that was never started (`RUN_NOT_FOUND`). */
export class RunNotFoundError extends StreamsErrorBase<'RUN_NOT_FOUND'> {
  override readonly name = 'RunNotFoundError';
  constructor(runId: string) {
    super('RUN_NOT_FOUND', `run ${runId} was never started`);
  }
}

/** No object with this digest in the blob store (`BLOB_NOT_FOUND`). */
export class BlobNotFoundError extends StreamsErrorBase<'BLOB_NOT_FOUND'> {
  override readonly name = 'BlobNotFoundError';
  readonly digest: string;
  constructor(digest: string) {
    super('BLOB_NOT_FOUND', `blob ${digest} not found`);
    this.digest = digest;
  }
}

/** The bytes stored under a digest do not hash to it (`BLOB_DIGEST_MISMATCH`). */
export class BlobDigestError extends StreamsErrorBase<'BLOB_DIGEST_MISMATCH'> {
  override readonly name = 'BlobDigestError';
  readonly digest: string;
  constructor(digest: string, actual: string | null, opts: { cause?: unknown } = {}) {
    super(
      'BLOB_DIGEST_MISMATCH',
      `blob ${digest}: stored bytes hash to ${actual ?? 'an unreadable object'}`,
      opts,
    );
    this.digest = digest;
  }
}

/** Retention settings that make no sense (`RETENTION_INVALID`), naming the field. */
export class RetentionSettingsError extends StreamsErrorBase<'RETENTION_INVALID'> {
  override readonly name = 'RetentionSettingsError';
  constructor(message: string) {
    super('RETENTION_INVALID', message);
  }
}

/** True when `err` is a {@link LogConflictError}. */
export function isLogConflict(err: unknown): err is LogConflictError {
  return err instanceof LogConflictError;
}

/** True when `err` is a {@link BlobDigestError}. */
export function isBlobDigestMismatch(err: unknown): err is BlobDigestError {
  return err instanceof BlobDigestError;
}
