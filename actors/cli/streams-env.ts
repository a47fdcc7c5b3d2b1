/**
 * Opens the event log for a command: the NATS at `NATS_URL`, or the machine's local nats-server
 * (store `$ENGILOOP_HOME/nats`), started in the background on first use and shared by every
 * engiloop command on this machine, so runs, workers and later `results` / `events` / `replay`
 * commands all see the same streams.
 */
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { BlobStore, EpisodeLog, RunIndex, connectNats, ensureLocalNats } from '../../streams/index.js';
import { engiloopHome } from '../paths.js';
import { CliExit, EXIT } from './exit.js';

export interface StreamsEnv {
  nc: NatsConnection;
  log: EpisodeLog;
  blobs: BlobStore;
  runs: RunIndex;
  /** Where the NATS came from, for messages. */
  where: string;
  close(): Promise<void>;
}

/** The local server's folder. */
export const localNatsDir = (env: NodeJS.ProcessEnv = process.env): string => join(engiloopHome(env), 'nats');

export async function openStreams(env: NodeJS.ProcessEnv = process.env): Promise<StreamsEnv> {
  let url = env.NATS_URL;
  let where = `NATS_URL=${url}`;
  if (!url) {
    const local = await ensureLocalNats(localNatsDir(env));
    url = local.url;
    where = `local nats-server ${url} (store ${localNatsDir(env)}${local.started ? ', just started' : ''})`;
  }
  const nc = await connectNats(url);
  const [log, blobs, runs] = await Promise.all([EpisodeLog.open(nc), BlobStore.open(nc), RunIndex.open(nc)]);
  return {
    nc,
    log,
    blobs,
    runs,
    where,
    close: async () => {
      await nc.drain().catch(() => nc.close());
    },
  };
}

/** Runs `fn` with the event log open, closing it after; an unreachable NATS is exit 3. */
export async function withStreams<T>(fn: (s: StreamsEnv) => Promise<T>): Promise<T> {
  const s = await openStreams().catch((e: Error) => {
    throw new CliExit(EXIT.ENV, `cannot open the event log: ${e.message}`);
  });
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}
