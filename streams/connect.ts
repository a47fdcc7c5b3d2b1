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
const DEFAULT_CONNECTION_OPTIONS: Readonly<ConnectionOptions> = Object.freeze({
  name: 'engiloop',
  maxReconnectAttempts: -1,
  reconnectTimeWait: 1_000,
  noEcho: true,
  timeout: 5_000,
});

/** The servers named by `url`: one URL, a comma-separated list (as `NATS_URL` may hold), or an array. */
function natsServers(url: string | readonly string[]): string[] {
  const list = typeof url === 'string' ? url.split(',') : url;
  return list.map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * Connects to `url`; `opts` override {@link DEFAULT_CONNECTION_OPTIONS}. Given several servers (a
 * cluster: an array or `nats://a:4222,nats://b:4222`), the client connects to one and fails over to
 * the others (and to those the cluster advertises) when it goes away.
 *
 * @throws NatsUnreachableError `NATS_UNREACHABLE` (retryable) when the first connect fails.
 * @example
 * ```ts
 * const nc = await connectNats('nats://10.0.0.1:4222,nats://10.0.0.2:4222,nats://10.0.0.3:4222');
 * ```
 */
export async function connectNats(
  url: string | readonly string[],
  opts: ConnectionOptions = {},
): Promise<NatsConnection> {
  const servers = natsServers(url);
  try {
    return await connect({ ...DEFAULT_CONNECTION_OPTIONS, ...opts, servers });
  } catch (err) {
    throw new NatsUnreachableError(servers.join(','), { cause: err });
  }
}
