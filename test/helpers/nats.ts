/**
 * A nats-server of its own for one test file (fresh temp store dir, random port) plus a connection.
 * Test files each start one, so they run in parallel without sharing streams.
 *
 * @example
 * ```ts
 * await using nats = await startTestNats();
 * const log = await EpisodeLog.open(nats.nc);
 * ```
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { asyncDispose } from '../../core/index.js';
import {
  connectNats,
  startNatsServer,
  type NatsServerHandle,
  type NatsServerOptions,
} from '../../streams/index.js';

/** A started server and a connection to it. */
export interface TestNats {
  server: NatsServerHandle;
  url: string;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Drains the connection, stops the server, removes its temp store dir. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts a server (options as {@link startNatsServer}) and connects to it. */
export async function startTestNats(opts: NatsServerOptions = {}): Promise<TestNats> {
  const server = await startNatsServer(opts);
  let nc: NatsConnection;
  try {
    nc = await connectNats(server.url, { name: 'engiloop-test' });
  } catch (err) {
    await server.stop();
    throw err;
  }
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      if (!nc.isClosed()) await nc.close();
      await server.stop();
    })();
    return closed;
  };
  return {
    server,
    url: server.url,
    nc,
    js: jetstream(nc),
    jsm: await jetstreamManager(nc),
    close,
    [asyncDispose]: close,
  };
}
