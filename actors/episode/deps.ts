/**
 * The real episode dependencies in one place: the JetStream log and object store, Docker sandboxes,
 * and the verifier registry (with verifier tools run in sandboxes of the same provider).
 */
import type { BlobStore, EpisodeLog } from '../../streams/index.js';
import { createRunTool, DockerSandboxProvider } from '../sandbox/index.js';
import type { EpisodeDeps } from './ports.js';
import { verifyTask } from './verify-task.js';

/**
 * @example
 * ```ts
 * const deps = episodeDeps({ log, blobs });
 * await runEpisode(lt, deps, { episodeId, runId, agent, artifactsDir });
 * ```
 */
export function episodeDeps(o: {
  log: Pick<EpisodeLog, 'writer'>;
  blobs: BlobStore;
  /** Default: a provider on the default Docker socket. */
  provider?: DockerSandboxProvider;
}): EpisodeDeps {
  const provider = o.provider ?? new DockerSandboxProvider();
  return {
    openLog: (id) => o.log.writer(id),
    blobs: o.blobs,
    sandboxes: provider,
    runTool: createRunTool(provider),
    verify: verifyTask,
  };
}
