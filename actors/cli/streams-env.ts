/**
 * Opens the event log for a command: the NATS at `NATS_URL`, or the machine's local nats-server
 * (store `$ENGILOOP_HOME/nats`), started in the background on first use and shared by every
 * engiloop command on this machine, so runs, workers and later `results` / `events` / `replay`
 * commands all see the same streams.
 *
 * `NATS_URL` may list several servers (`nats://a:4222,nats://b:4222,nats://c:4222`) to fail over
 * between the nodes of a cluster; `ENGILOOP_NATS_REPLICAS` (1, 3 or 5; default unset) sets the
 * replicas of every engiloop stream there, scaling existing ones to it.
 */
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  BlobStore,
  EpisodeLog,
  RunIndex,
  SummaryStore,
  connectNats,
  ensureJobsStream,
  ensureLocalNats,
  type StreamsOptions,
} from '../../streams/index.js';
import { engiloopHome } from '../paths.js';
import { CliExit, EXIT } from './exit.js';

export interface StreamsEnv {
  nc: NatsConnection;
  log: EpisodeLog;
  blobs: BlobStore;
  runs: RunIndex;
  /** Episode summaries (failure modes, usage) for `analyze`. */
  summaries: SummaryStore;
  /** Where the NATS came from, for messages. */
  where: string;
  close(): Promise<void>;
}

/** The local server's folder. */
export const localNatsDir = (env: NodeJS.ProcessEnv = process.env): string => join(engiloopHome(env), 'nats');

/**
 * Stream options from the environment: `ENGILOOP_NATS_REPLICAS` as `replicas` (unset or empty: `{}`).
 *
 * @throws CliExit exit 2 when it is not a whole number from 1 to 5 (JetStream's limit).
 */
function streamsOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): StreamsOptions {
  const raw = env.ENGILOOP_NATS_REPLICAS?.trim();
  if (!raw) return {};
  const replicas = Number(raw);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5)
    throw new CliExit(
      EXIT.BAD_INPUT,
      `ENGILOOP_NATS_REPLICAS must be a whole number from 1 to 5 (got "${raw}")`,
    );
  return { replicas };
}

/** Connects to the NATS of `env` and opens the log, blobs and run index (see the module doc). */
async function openStreams(env: NodeJS.ProcessEnv = process.env): Promise<StreamsEnv> {
  const so = streamsOptionsFromEnv(env);
  let url = env.NATS_URL;
  let where = `NATS_URL=${url}`;
  if (!url) {
    const local = await ensureLocalNats(localNatsDir(env));
    url = local.url;
    where = `local nats-server ${url} (store ${localNatsDir(env)}${local.started ? ', just started' : ''})`;
  }
  const nc = await connectNats(url);
  // The log first: it may scale the events and runs streams, and RunIndex.open would otherwise
  // send them a second update while they elect their new leaders.
  const log = await EpisodeLog.open(nc, so);
  const [blobs, runs] = await Promise.all([
    BlobStore.open(nc, undefined, so),
    RunIndex.open(nc, undefined, so),
  ]);
  const summaries = new SummaryStore(log.js, log.jsm);
  // The job queue is opened later by `submit` / `worker` / `status` without options, which keeps
  // the stream's replicas: set them here.
  if (so.replicas !== undefined) await ensureJobsStream(log.jsm, so);
  return {
    nc,
    log,
    blobs,
    runs,
    summaries,
    where,
    close: async () => {
      await nc.drain().catch(() => nc.close());
    },
  };
}

/** Runs `fn` with the event log open, closing it after; an unreachable NATS is exit 3. */
export async function withStreams<T>(fn: (s: StreamsEnv) => Promise<T>): Promise<T> {
  const s = await openStreams().catch((e: Error) => {
    if (e instanceof CliExit) throw e;
    throw new CliExit(EXIT.ENV, `cannot open the event log: ${e.message}`);
  });
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}
