/**
 * What a command that runs episodes needs: the event log, Docker, a run id and folder, orphan
 * clean-up, and Ctrl-C handling (first: stop episodes and remove their containers; second: quit).
 */
import { join } from 'node:path';
import { failureModesOf } from '../analysis/index.js';
import { episodeDeps, type EpisodeDeps } from '../episode/index.js';
import { engiloopHome } from '../paths.js';
import { newRunId } from '../run/index.js';
import { DockerSandboxProvider } from '../sandbox/index.js';
import { onInterrupt } from './exit.js';
import { withStreams, type StreamsEnv } from './streams-env.js';

export interface RunEnv {
  streams: StreamsEnv;
  deps: EpisodeDeps;
  runId: string;
  runDir: string;
  signal: AbortSignal;
}

/** Runs `fn` with a run environment, tearing it down on every exit path. */
export async function withRunEnv<T>(fn: (env: RunEnv) => Promise<T>): Promise<T> {
  return withStreams(async (streams) => {
    const provider = new DockerSandboxProvider();
    const interrupt = onInterrupt('interrupted: stopping episodes and removing their containers');
    try {
      const orphans = await provider.removeOrphans().catch(() => 0);
      if (orphans) console.error(`removed ${orphans} container(s) left by a crashed run`);
      const runId = newRunId();
      const deps: EpisodeDeps = {
        ...episodeDeps({ log: streams.log, blobs: streams.blobs, provider }),
        failureModes: failureModesOf,
      };
      return await fn({
        streams,
        deps,
        runId,
        runDir: join(engiloopHome(), 'runs', runId),
        signal: interrupt.signal,
      });
    } finally {
      interrupt.dispose();
    }
  });
}
