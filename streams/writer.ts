/**
 * The single writer of one episode: optimistic concurrency with `expect.lastSubjectSequence`,
 * idempotent retries with `Nats-Msg-Id` = `<episodeId>:<n>`.
 */
import type { JetStreamClient, JetStreamManager, PubAck } from '@nats-io/jetstream';
import { encodeEvent } from './codec.js';
import type { EpisodeEvent } from './events.js';
import { LogConflictError } from './errors.js';
import { countSubject, mapPublishError } from './subjects.js';

/** Outcome of one append. */
export interface AppendResult {
  /** Stream sequence of the stored event. */
  seq: number;
  /** 1-based position of the event in its episode. */
  n: number;
  /** JetStream had already stored this message (a retry): nothing new was written. */
  duplicate: boolean;
}

/** Where a writer starts: the subject's last stream sequence and how many events it holds. */
export interface WriterPosition {
  /** Stream sequence of the episode's last event; 0 (default) for a new episode. */
  expectedLastSeq?: number;
  /** Number of events already in the episode; 0 (default) for a new episode. */
  n?: number;
}

/** What a writer needs from the log. */
export interface WriterDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
}

/**
 * Appends events to `engiloop.ep.<episodeId>`. Not safe for concurrent calls on one instance: await
 * each append (or use {@link EpisodeWriter.appendPipelined}). After a `LOG_CONFLICT` the writer lost
 * the race and every later call throws the same error.
 */
export class EpisodeWriter {
  readonly episodeId: string;
  readonly subject: string;
  #lastSeq: number;
  #n: number;
  #lost: LogConflictError | undefined;

  constructor(
    private readonly deps: WriterDeps,
    episodeId: string,
    subject: string,
    pos: WriterPosition = {},
  ) {
    this.episodeId = episodeId;
    this.subject = subject;
    this.#lastSeq = pos.expectedLastSeq ?? 0;
    this.#n = pos.n ?? 0;
  }

  /** Current position: the last sequence this writer expects and the events it knows of. */
  get position(): Required<WriterPosition> {
    return { expectedLastSeq: this.#lastSeq, n: this.#n };
  }

  /**
   * Appends one event and waits for JetStream's ack. Retrying after a failure (same writer, same
   * event) reuses the message id, so a message that was in fact stored is not stored twice.
   *
   * @throws LogConflictError `LOG_CONFLICT` when another writer appended first.
   * @throws LogWriteError `LOG_WRITE` (retryable) on timeouts and other publish failures.
   */
  async append(event: EpisodeEvent): Promise<AppendResult> {
    this.#assertNotLost();
    const n = this.#n + 1;
    const data = encodeEvent(event);
    let ack: PubAck;
    try {
      ack = await this.deps.js.publish(this.subject, data, {
        msgID: this.#msgId(n),
        expect: { lastSubjectSequence: this.#lastSeq },
      });
    } catch (err) {
      throw this.#failed(err);
    }
    return this.#accept(ack, n, data);
  }

  /**
   * Appends several events without waiting for each ack in turn. The first is appended with the
   * same concurrency check as {@link append} (a stale writer stops before sending the rest); the rest
   * are published back to back (their sequences are unknown in advance, so they carry only message
   * ids) and all acks are awaited at the end. Processing stops at the first failed ack: the writer's
   * position stays after the last consecutive success and the error is thrown. Afterwards the
   * subject's message count is checked, so a writer that interleaved is reported as `LOG_CONFLICT`.
   * Meant for bulk writes by a single writer (imports, benches); the runner uses {@link append}.
   */
  async appendPipelined(events: readonly EpisodeEvent[]): Promise<AppendResult[]> {
    const [head, ...rest] = events;
    if (head === undefined) return [];
    const results = [await this.append(head)];
    const base = this.#n;
    const datas = rest.map((e) => encodeEvent(e));
    const acks = datas.map((data, i) =>
      this.deps.js.publish(this.subject, data, { msgID: this.#msgId(base + i + 1) }),
    );
    const settled = await Promise.allSettled(acks);
    for (const [i, s] of settled.entries()) {
      if (s.status === 'rejected') throw this.#failed(s.reason);
      results.push(await this.#accept(s.value, base + i + 1, datas[i]!));
    }
    const count = await countSubject(this.deps.jsm, this.deps.stream, this.subject);
    if (count !== this.#n)
      throw this.#lose(`subject holds ${count} events after a batch that ended at n=${this.#n}`);
    return results;
  }

  async #accept(ack: PubAck, n: number, data: Uint8Array): Promise<AppendResult> {
    // A duplicate ack only proves the *id* was seen: check the stored bytes are ours, else another
    // writer took position n first.
    if (ack.duplicate) {
      const stored = await this.deps.jsm.streams.getMessage(this.deps.stream, { seq: ack.seq });
      if (!stored || stored.subject !== this.subject || !sameBytes(stored.data, data)) {
        throw this.#lose(`position ${n} (seq ${ack.seq}) already holds a different event`);
      }
    }
    this.#n = n;
    this.#lastSeq = ack.seq;
    return { seq: ack.seq, n, duplicate: ack.duplicate };
  }

  #msgId(n: number): string {
    return `${this.episodeId}:${n}`;
  }

  #failed(err: unknown): Error {
    const mapped = mapPublishError('episode', this.episodeId, this.#lastSeq, err);
    if (mapped instanceof LogConflictError) this.#lost = mapped;
    return mapped;
  }

  #lose(detail: string): LogConflictError {
    this.#lost = new LogConflictError('episode', this.episodeId, this.#lastSeq, detail);
    return this.#lost;
  }

  #assertNotLost(): void {
    if (this.#lost) throw this.#lost;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}
