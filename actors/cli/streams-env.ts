/**
 * Opens the event log for a command: the NATS at `NATS_URL`, or an embedded nats-server with its
 * store under `$ENGILOOP_HOME/nats` (so runs can be found again by later commands).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  BlobStore,
  EpisodeLog,
  RunIndex,
  connectNats,
  startNatsServer,
  type NatsServerHandle,
} from '../../streams/index.js';
import { engiloopHome } from '../paths.js';

export interface StreamsEnv {
  nc: NatsConnection;
  log: EpisodeLog;
  blobs: BlobStore;
  runs: RunIndex;
  /** Where the NATS came from, for messages. */
  where: string;
  close(): Promise<void>;
}

export async function openStreams(env: NodeJS.ProcessEnv = process.env): Promise<StreamsEnv> {
  let server: NatsServerHandle | undefined;
  let url = env.NATS_URL;
  if (!url) {
    const storeDir = join(engiloopHome(env), 'nats');
    await mkdir(storeDir, { recursive: true });
    server = await startNatsServer({ storeDir });
    url = server.url;
  }
  try {
    const nc = await connectNats(url);
    const [log, blobs, runs] = await Promise.all([
      EpisodeLog.open(nc),
      BlobStore.open(nc),
      RunIndex.open(nc),
    ]);
    return {
      nc,
      log,
      blobs,
      runs,
      where: server ? `embedded nats-server (store ${server.storeDir})` : `NATS_URL=${url}`,
      close: async () => {
        await nc.drain().catch(() => nc.close());
        await server?.stop();
      },
    };
  } catch (e) {
    await server?.stop();
    throw e;
  }
}
