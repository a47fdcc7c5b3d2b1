/**
 * Connecting to NATS with the options engiloop relies on.
 */
import { connect } from '@nats-io/transport-node';
import type { ConnectionOptions, NatsConnection } from '@nats-io/nats-core';
import { NatsUnreachableError } from './errors.js';

/**
 * Defaults: `name: 'engiloop'`; once connected, reconnect forever every 1 s (a runner outlives a
 * server restart; publishes wait in the client buffer); `noEcho` (we never read what we publish on
 * the same connection through a subscription); a 5 s first-connect timeout.
 */
export const DEFAULT_CONNECTION_OPTIONS: Readonly<ConnectionOptions> = Object.freeze({
  name: 'engiloop',
  maxReconnectAttempts: -1,
  reconnectTimeWait: 1_000,
  noEcho: true,
  timeout: 5_000,
});

/**
 * Connects to `url`; `opts` override {@link DEFAULT_CONNECTION_OPTIONS}.
 *
 * @throws NatsUnreachableError `NATS_UNREACHABLE` (retryable) when the first connect fails.
 */
export async function connectNats(url: string, opts: ConnectionOptions = {}): Promise<NatsConnection> {
  try {
    return await connect({ ...DEFAULT_CONNECTION_OPTIONS, ...opts, servers: url });
  } catch (err) {
    throw new NatsUnreachableError(url, { cause: err });
  }
}
