/**
 * What a command that runs episodes needs: the event log, Docker, a run id and folder, orphan
 * clean-up, and Ctrl-C handling (first: stop episodes and remove their containers; second: quit).
 */
import { join } from 'node:path';
import { verifyTask, type EpisodeDeps } from '../episode/index.js';
import { engiloopHome } from '../paths.js';
import { newRunId } from '../run/index.js';
import { DockerSandboxProvider, createRunTool } from '../sandbox/index.js';
import { CliExit, EXIT } from './exit.js';
import { openStreams, type StreamsEnv } from './streams-env.js';

export interface RunEnv {
  streams: StreamsEnv;
  deps: EpisodeDeps;
  runId: string;
  runDir: string;
  signal: AbortSignal;
}

/** Runs `fn` with a run environment, tearing it down on every exit path. */
export async function withRunEnv<T>(fn: (env: RunEnv) => Promise<T>): Promise<T> {
  const streams = await openStreams().catch((e: Error) => {
    throw new CliExit(EXIT.ENV, `cannot open the event log: ${e.message}`);
  });
  const provider = new DockerSandboxProvider();
  const ac = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    if (++interrupts > 1) process.exit(130);
    console.error(
      '\ninterrupted: stopping episodes and removing their containers (Ctrl-C again to quit now)',
    );
    ac.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const orphans = await provider.removeOrphans().catch(() => 0);
    if (orphans) console.error(`removed ${orphans} container(s) left by a crashed run`);
    const runId = newRunId();
    const deps: EpisodeDeps = {
      openLog: (id) => streams.log.writer(id),
      blobs: streams.blobs,
      sandboxes: provider,
      runTool: createRunTool(provider),
      verify: verifyTask,
    };
    return await fn({ streams, deps, runId, runDir: join(engiloopHome(), 'runs', runId), signal: ac.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await streams.close();
  }
}
