/**
 * Real episode dependencies for tests: a nats-server of the test file's own, the real Docker engine,
 * the real verifiers. Runs use a unique run id so their containers can be checked afterwards.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { Agent } from '../../actors/agents/index.js';
import { runEpisode, episodeDeps, type EpisodeDeps, type EpisodeResult } from '../../actors/episode/index.js';
import { newRunId } from '../../actors/run/index.js';
import { DockerSandboxProvider } from '../../actors/sandbox/index.js';
import { BlobStore, EpisodeLog } from '../../streams/index.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { startTestNats, type TestNats } from './nats.js';

export const STARTER = join(import.meta.dirname, '../../tasks/starter');

export interface EpisodeKit {
  nats: TestNats;
  log: EpisodeLog;
  blobs: BlobStore;
  provider: DockerSandboxProvider;
  deps: EpisodeDeps;
  runId: string;
  dir: string;
  /** Runs one episode of `lt` with `agent`; ids are unique within the kit. */
  run(lt: LoadedTask, agent: Agent, opts?: { deps?: Partial<EpisodeDeps> }): Promise<EpisodeResult>;
  /** Containers still present that this kit's runs created. */
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

export async function episodeKit(): Promise<EpisodeKit> {
  const nats = await startTestNats();
  const log = await EpisodeLog.open(nats.nc);
  const blobs = await BlobStore.open(nats.nc);
  const provider = new DockerSandboxProvider();
  const deps: EpisodeDeps = episodeDeps({ log, blobs, provider });
  const runId = newRunId();
  const dir = await mkdtemp(join(tmpdir(), 'engiloop-ep-'));
  let k = 0;
  return {
    nats,
    log,
    blobs,
    provider,
    deps,
    runId,
    dir,
    run: (lt, agent, opts = {}) => {
      const episodeId = `${runId}-${lt.task.id}-${++k}`;
      return runEpisode(
        lt,
        { ...deps, ...opts.deps },
        { episodeId, runId, agent, artifactsDir: join(dir, episodeId) },
      );
    },
    leftovers: async () =>
      (
        await new Docker().listContainers({ all: true, filters: { label: [`io.engiloop.run=${runId}`] } })
      ).map((c) => c.Id),
    close: async () => {
      await nats.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Loads a starter task by id. */
export const starter = (id: string): Promise<LoadedTask> => loadTask(join(STARTER, id));

/** An agent from a function of the round and observation. */
export function agentOf(name: string, fn: (round: number, observation: string) => unknown): Agent {
  return { name, decide: async (i) => fn(i.round, i.observation) };
}
