/**
 * Which NATS failures pass by themselves, recognised by nats.js's own error classes and JetStream's
 * numeric error codes (never by message text), and the retry of idempotent NATS operations through
 * them with the one budget of `core/retry.ts`.
 *
 * How the faults arrive (nats.js 3.3.1): a request nobody answered in time rejects with
 * `TimeoutError`; a subject with no subscriber (JetStream not up yet on a restarting server) with a
 * `RequestError` whose cause is a `NoRespondersError`, which the JetStream client wraps once more in
 * `JetStreamNotEnabled`; a JetStream API refusal with `JetStreamApiError` (`code` = nats-server's
 * `err_code`, `status` = its HTTP-like code); a status reply to a direct get or a consumer with a
 * `JetStreamError` carrying a numeric `code`; a request on a closed connection with
 * `ClosedConnectionError`. So the cause chain is walked and each link is judged by its class.
 *
 * This replaces a regex on message text (`no responders|503|temporarily unavailable|no suitable
 * peers|leader|disconnect|timeout`): "timeout" is `TimeoutError` or status 408; "no responders" and
 * "503" are `NoRespondersError` or status 503; "temporarily unavailable", "no suitable peers" and
 * "leader" are the API codes below; "disconnect" only ever came from `RequestError("connection
 * disconnected")`, which nats-core raises in `rtt()`/`flush()` alone, and engiloop calls neither
 * (a request made while disconnected waits for the reconnect and, failing that, times out). No NATS
 * fault reaches engiloop as a plain `Error`, so no message is matched, except where nats-core
 * itself tells two faults apart only by message (see {@link isConnectionClosed}).
 */
import { JetStreamApiError, JetStreamError } from '@nats-io/jetstream';
import { ClosedConnectionError, NoRespondersError, RequestError, TimeoutError } from '@nats-io/nats-core';
import { retry, type RetryOptions } from '../core/index.js';

/**
 * JetStream API error codes (`err_code` in nats-server's `server/errors.json`) of a cluster briefly
 * unable to serve a request that will succeed once an election or a restart is over.
 */
const TRANSIENT_API_CODES: ReadonlySet<number> = new Set([
  10008, // JSClusterNotAvailErr (503): "JetStream system temporarily unavailable", during an election
  10005, // JSClusterNoPeersErrF (400): "no suitable peers for placement", a node is down right now
  10009, // JSClusterNotLeaderErr (500): "JetStream cluster can not handle request", leadership just moved
  10163, // JSStreamExpectedLastSeqPerSubjectNotReady (503): a new stream leader is still catching up
]);

/** Status codes of a JetStream status reply that pass: 503 no responders, 408 request timeout. */
const TRANSIENT_STATUS_CODES: ReadonlySet<number> = new Set([503, 408]);

/** `err` and its `cause` chain, nearest first (at most 16 links, in case a chain loops). */
function* causeChain(err: unknown): Generator<Error> {
  let e = err;
  for (let i = 0; i < 16 && e instanceof Error; i++, e = e.cause) yield e;
}

/**
 * True when `err` (or an error in its `cause` chain) is NATS being briefly unavailable — a request
 * timeout, no responders, JetStream "temporarily unavailable" or "not leader" during an election, no
 * peers for placement while a node is down — so the same request can succeed a little later. (A
 * publish to a subject no stream captures also gets "no responders", the same answer as a stream
 * whose server is still starting; the two cannot be told apart, and both count as transient.) A
 * closed connection is not transient (it never reopens; see {@link isConnectionClosed}), nor is a
 * refusal such as stream-not-found or wrong-last-sequence.
 */
export function isTransient(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e instanceof TimeoutError || e instanceof NoRespondersError) return true;
    if (e instanceof JetStreamApiError && TRANSIENT_API_CODES.has(e.code)) return true;
    // A status reply (`JetStreamStatusError`, not exported by the package): its `code` is the status.
    const status = e instanceof JetStreamError ? (e as { code?: unknown }).code : undefined;
    if (typeof status === 'number' && TRANSIENT_STATUS_CODES.has(status)) return true;
  }
  return false;
}

/** True when `err`, or an error in its `cause` chain, is a NATS request timeout. */
function isTimeout(err: unknown): boolean {
  for (const e of causeChain(err)) if (e instanceof TimeoutError) return true;
  return false;
}

/**
 * True when `err` (or its `cause` chain) says this process closed its NATS connection: a request
 * made after `close()` (`ClosedConnectionError`), or one still waiting when it was called.
 */
export function isConnectionClosed(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e instanceof ClosedConnectionError) return true;
    // nats-core rejects the requests pending at close() with `RequestError("connection closed")`
    // (muxsubscription.ts); its other bare RequestErrors ("cancelled", "connection disconnected")
    // differ from it only in the message, so here, and only here, the message is the mark.
    if (e instanceof RequestError && e.message === 'connection closed') return true;
  }
  return false;
}

/**
 * Runs `op`, again with the backoff of `RETRY_BUDGET` (`core/retry.ts`) while it fails with a
 * transient NATS error ({@link isTransient}). Only for idempotent operations; other errors are
 * thrown at once. `o` may add `onRetry` and `signal`.
 */
export function retryTransient<T>(op: () => Promise<T>, o: Omit<RetryOptions, 'retryable'> = {}): Promise<T> {
  return retry(op, { ...o, retryable: isTransient });
}

/** Attempts of a read that times out, in all (see {@link retryTimeouts}). */
const READ_ATTEMPTS = 5;

/**
 * Runs `read`, again at once when it times out, up to 5 times in all; other errors are
 * thrown at once. Reads create an ephemeral consumer, and on a replicated stream nats-server ≤ 2.11
 * may place it on a node that is down (about one read in three with one of three nodes down): the
 * request then times out (nats-server#7165, fixed in 2.12). Another attempt lands on a live node, so
 * waiting would only slow it: this is the one loop with its own budget (no backoff).
 */
export function retryTimeouts<T>(read: () => Promise<T>): Promise<T> {
  const budget = { attempts: READ_ATTEMPTS, firstDelayMs: 0, maxDelayMs: 0 };
  return retry(read, { retryable: isTimeout, budget });
}
