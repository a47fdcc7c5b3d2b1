/**
 * A three-node (by default) nats-server cluster on 127.0.0.1 for one test file: random client and
 * route ports, a temp store dir per node, JetStream with `sync_interval: always`, plus a client
 * connected to every node. Nodes can be killed with SIGKILL and restarted on the same ports and store.
 *
 * @example
 * ```ts
 * await using cluster = await startTestCluster();
 * const log = await EpisodeLog.open(cluster.nc, { replicas: 3 });
 * await cluster.kill(cluster.indexOf(await cluster.leaderOf('ENGILOOP_EVENTS')));
 * ```
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { asyncDispose } from '../../core/index.js';
import {
  connectNats,
  startNatsServer,
  type NatsClusterOptions,
  type NatsServerHandle,
} from '../../streams/index.js';

/** One node of the cluster. */
export interface ClusterNode {
  /** `server_name`, e.g. `n1`: what stream info reports as leader and replicas. */
  name: string;
  url: string;
  storeDir: string;
  /** The running process, or null while killed. */
  server: NatsServerHandle | null;
}

/** A running cluster and a client connected to all of it. */
export interface TestNatsCluster {
  nodes: ClusterNode[];
  /** Every node's URL, comma-separated (the form `NATS_URL` takes). */
  url: string;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Index of the node named `name`. */
  indexOf(name: string): number;
  /** Name of the node leading `stream`'s replica group. */
  leaderOf(stream: string): Promise<string>;
  /** SIGKILLs node `i` and waits until its process is gone. */
  kill(i: number): Promise<void>;
  /** Starts node `i` again on its ports and store. */
  restart(i: number): Promise<void>;
  /** Resolves once JetStream answers (the cluster has a meta leader); throws after `timeoutMs`. */
  waitForJetStream(timeoutMs?: number): Promise<void>;
  /** Resolves once `stream` has a leader and every other replica is current; throws after `timeoutMs`. */
  waitForReplicas(stream: string, timeoutMs?: number): Promise<void>;
  /** Closes the client, stops every node, removes the store dirs. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every 250 ms until it returns true; throws `what` after `timeoutMs`. */
async function until(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() - t0 > timeoutMs) throw new Error(`nats cluster: ${what} after ${timeoutMs} ms`);
    await sleep(250);
  }
}

/** Starts `size` nodes (default 3), waits for a JetStream meta leader, and connects to all of them. */
export async function startTestCluster(size = 3): Promise<TestNatsCluster> {
  const ports = await Promise.all(Array.from({ length: size * 2 }, freePort));
  const clientPorts = ports.slice(0, size);
  const routePorts = ports.slice(size);
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < size; i++)
    nodes.push({
      name: `n${i + 1}`,
      url: `nats://127.0.0.1:${clientPorts[i]}`,
      storeDir: await mkdtemp(join(tmpdir(), `engiloop-cluster-n${i + 1}-`)),
      server: null,
    });
  const clusterOf = (i: number): NatsClusterOptions => ({
    name: 'engiloop-test',
    serverName: nodes[i]!.name,
    port: routePorts[i]!,
    routes: routePorts,
  });
  const start = async (i: number) => {
    const n = nodes[i]!;
    n.server = await startNatsServer({ storeDir: n.storeDir, port: clientPorts[i]!, cluster: clusterOf(i) });
  };

  let nc: NatsConnection | undefined;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      if (nc && !nc.isClosed()) await nc.close().catch(() => undefined);
      await Promise.all(nodes.map((n) => n.server?.stop()));
      await Promise.all(nodes.map((n) => rm(n.storeDir, { recursive: true, force: true })));
    })();
    return closed;
  };

  try {
    await Promise.all(nodes.map((_, i) => start(i)));
    const url = nodes.map((n) => n.url).join(',');
    nc = await connectNats(url, { name: 'engiloop-test' });
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    const cluster: TestNatsCluster = {
      nodes,
      url,
      nc,
      js: jetstream(nc),
      jsm,
      indexOf: (name) => {
        const i = nodes.findIndex((n) => n.name === name);
        if (i < 0) throw new Error(`nats cluster: no node "${name}"`);
        return i;
      },
      leaderOf: async (stream) => {
        const leader = (await jsm.streams.info(stream)).cluster?.leader;
        if (!leader) throw new Error(`nats cluster: stream ${stream} has no leader`);
        return leader;
      },
      kill: async (i) => {
        const s = nodes[i]!.server;
        if (!s) return;
        process.kill(s.pid, 'SIGKILL');
        await s.stop();
        nodes[i]!.server = null;
      },
      restart: (i) => start(i),
      waitForJetStream: (timeoutMs = 20_000) =>
        until(async () => !!(await jsm.getAccountInfo()), timeoutMs, 'no JetStream meta leader'),
      waitForReplicas: (stream, timeoutMs = 30_000) =>
        until(
          async () => {
            const { cluster: c, config } = await jsm.streams.info(stream);
            const others = c?.replicas ?? [];
            return (
              !!c?.leader &&
              others.length === config.num_replicas - 1 &&
              others.every((r) => r.current && !r.offline)
            );
          },
          timeoutMs,
          `stream ${stream} replicas not current`,
        ),
      close,
      [asyncDispose]: close,
    };
    await cluster.waitForJetStream();
    return cluster;
  } catch (err) {
    await close();
    throw err;
  }
}
