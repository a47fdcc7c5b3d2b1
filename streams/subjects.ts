/**
 * Subject-level helpers shared by the episode log and the run index: id validation, reading every
 * message of a subject in order, and mapping publish failures to our errors.
 */
import { DeliverPolicy, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { InvalidLogIdError, LogConflictError, LogWriteError } from './errors.js';

const ID = /^[A-Za-z0-9_-]+$/;

/** Throws `INVALID_LOG_ID` unless `id` is `[A-Za-z0-9_-]+` (a single NATS subject token). */
export function validateId(kind: 'episode' | 'run', id: string): string {
  if (!ID.test(id)) throw new InvalidLogIdError(kind, id);
  return id;
}

/** One stored message, undecoded. */
export interface StoredRecord {
  /** Stream sequence. */
  seq: number;
  subject: string;
  /** Server receive time. */
  time: Date;
  /** The `Nats-Msg-Id` header, when set. */
  msgId: string | null;
  /** Payload (empty when read headers-only). */
  data: Uint8Array;
}

/** Number of messages stored on `subject` (may hold wildcards: counts are summed). */
export async function countSubject(jsm: JetStreamManager, stream: string, subject: string): Promise<number> {
  const info = await jsm.streams.info(stream, { subjects_filter: subject });
  return Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
}

/**
 * Every message on `subject` in stream order, read with an ordered (ephemeral, flow-controlled)
 * consumer; `[]` when the subject holds nothing. Messages appended while reading may be included;
 * never fewer than the leader counted when the read began.
 */
export async function readSubject(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
  subject: string,
  opts: { headersOnly?: boolean } = {},
): Promise<StoredRecord[]> {
  // Counting first means consume() below always has something to deliver, so it cannot hang.
  const count = await countSubject(jsm, stream, subject);
  if (count === 0) return [];
  const consumer = await js.consumers.get(stream, {
    filter_subjects: subject,
    deliver_policy: DeliverPolicy.All,
    headers_only: opts.headersOnly ?? false,
  });
  const out: StoredRecord[] = [];
  const messages = await consumer.consume({ max_messages: Math.min(count, 1_000) });
  try {
    for await (const m of messages) {
      out.push({
        seq: m.seq,
        subject: m.subject,
        time: m.time,
        msgId: m.headers?.get('Nats-Msg-Id') || null,
        data: m.data,
      });
      // `count` came from the stream leader. The ephemeral consumer may sit on a replica still
      // catching up (a restarted node), whose `pending` reaches 0 early: wait for the rest.
      if (m.info.pending === 0 && out.length >= count) break;
    }
  } finally {
    await messages.close();
  }
  return out;
}

/** True when `err` is JetStream rejecting an `expect.lastSubjectSequence` (or last sequence) check. */
function isWrongLastSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
      err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** Maps a failed publish: a wrong-last-sequence rejection → `LOG_CONFLICT`, anything else → `LOG_WRITE`. */
export function mapPublishError(
  kind: 'episode' | 'run',
  id: string,
  expectedSeq: number,
  err: unknown,
): Error {
  if (isWrongLastSequence(err))
    return new LogConflictError(kind, id, expectedSeq, (err as Error).message, { cause: err });
  const why = err instanceof Error ? err.message : String(err);
  return new LogWriteError(`append to ${kind} ${id} failed: ${why}`, { cause: err });
}
