/**
 * The Docker sandbox provider: checks the engine and images, creates hardened sandboxes, and
 * removes containers left behind by dead engiloop processes.
 */
import { hostname } from 'node:os';
import Docker from 'dockerode';
import { describeEndpoint, statusOf, toSandboxError } from './docker-errors.js';
import { DockerSandbox } from './docker-sandbox.js';
import { SandboxError } from './errors.js';
import { createLimitedDisk, diskLimitMode, removeLimitedDisk, splitDisk, type LimitedDisk } from './disk.js';
import { LABEL, hardenedContainerOptions, sandboxRuntime } from './hardening.js';
import { PersistentShell } from './shell.js';
import type { Sandbox, SandboxCreateOptions } from './types.js';

/** Label naming the host whose process created the container (pids mean nothing elsewhere). */
export const HOST_LABEL = `${LABEL}.host`;
/** Label holding the pid of the creating process (set by `hardenedContainerOptions`). */
export const PID_LABEL = `${LABEL}.pid`;

export interface DockerSandboxProviderOptions {
  /** Engine client; default `new Docker()`, which honours `DOCKER_HOST`. */
  docker?: Docker;
}

export interface RemoveOrphansOptions {
  /** Also remove containers created by this very process. Default false: they may be in use. */
  includeOwn?: boolean;
  /** Only consider containers carrying all these labels (e.g. one test's label). */
  labels?: Record<string, string>;
}

/** Label filters of an orphan search: engiloop's, plus the caller's. */
const orphanFilters = (opts: RemoveOrphansOptions): string[] => [
  LABEL,
  ...Object.entries(opts.labels ?? {}).map(([k, v]) => `${k}=${v}`),
];

/**
 * Whether what carries `labels` was made by an engiloop process of this host that is dead (or,
 * with `includeOwn`, by this one): other hosts' and live processes' things are kept.
 */
function orphaned(labels: Record<string, string>, opts: RemoveOrphansOptions): boolean {
  const pid = Number(labels[PID_LABEL]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const host = labels[HOST_LABEL];
  if (host !== undefined && host !== hostname()) return false;
  return pid === process.pid ? !!opts.includeOwn : !isAlive(pid);
}

/** True when a process with this pid exists on this host (EPERM: exists, owned by someone else). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Creates and cleans up Docker sandboxes. Never pulls: a missing image is `IMAGE_MISSING`.
 *
 * @example
 * const provider = new DockerSandboxProvider();
 * await provider.ping();
 * await using sb = await provider.create({ name: 'main', image: 'engiloop/cli:latest',
 *   workdir: '/workspace', cpus: 1, memoryMb: 1024, pids: 256 });
 * const r = await sb.exec('openscad --version', { timeoutMs: 10_000, outputCapBytes: 65_536 });
 */
export class DockerSandboxProvider {
  readonly docker: Docker;

  constructor(opts: DockerSandboxProviderOptions = {}) {
    this.docker = opts.docker ?? new Docker();
  }

  /** Throws `DOCKER_UNREACHABLE` (naming the socket or host) unless the engine answers. */
  async ping(): Promise<void> {
    try {
      await this.docker.ping();
    } catch (err) {
      throw new SandboxError(
        'DOCKER_UNREACHABLE',
        `Docker engine at ${describeEndpoint(this.docker)} does not answer: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  }

  /** Throws `IMAGE_MISSING` (naming the build command) unless `tag` exists locally. */
  async ensureImage(tag: string): Promise<void> {
    try {
      await this.docker.getImage(tag).inspect();
    } catch (err) {
      throw toSandboxError(err, {
        docker: this.docker,
        doing: `inspecting image ${tag}`,
        image: tag,
        fallback: 'DOCKER_UNREACHABLE',
      });
    }
  }

  /**
   * Creates, starts and opens the shell of a hardened container. If any step after creation fails
   * the container is removed before the error is thrown.
   */
  async create(opts: SandboxCreateOptions): Promise<Sandbox> {
    opts.signal?.throwIfAborted();
    const docker = this.docker;
    const labels = { [`${LABEL}.sandbox`]: opts.name, [HOST_LABEL]: hostname(), ...opts.labels };
    let container: Docker.Container;
    const split = splitDisk(opts.diskMb ?? 2048);
    let disk: LimitedDisk | undefined;
    try {
      // gVisor shows its own /proc/meminfo (the limit); with runc the sandbox gets a file stating it.
      const memInfo = sandboxRuntime() === undefined ? opts.memoryMb : undefined;
      if (diskLimitMode() === 'loop')
        disk = await createLimitedDisk(docker, split.workspaceMb, labels, memInfo);
      // `opts.name` is the sandbox's name within the task, not a container name: those must be unique.
      const { image, workdir, cpus, memoryMb, pids } = opts;
      container = await docker.createContainer(
        hardenedContainerOptions({
          image,
          workdir,
          cpus,
          memoryMb,
          pids,
          labels,
          tmpMb: split.tmpMb,
          shmMb: split.shmMb,
          ...(disk ? { workspaceVolume: disk.volume } : {}),
          ...(disk?.meminfo ? { meminfo: disk.meminfo } : {}),
        }),
      );
    } catch (err) {
      await disk?.release().catch(() => undefined);
      if (err instanceof SandboxError) throw err;
      throw toSandboxError(err, {
        docker,
        doing: `creating sandbox ${opts.name}`,
        image: opts.image,
        fallback: 'SANDBOX_IO',
      });
    }
    const services = opts.services === undefined ? [] : opts.services;
    const shell = new PersistentShell({ docker, container, workdir: opts.workdir, services });
    try {
      await container.start();
      opts.signal?.throwIfAborted();
      await shell.start();
      opts.signal?.throwIfAborted();
      return new DockerSandbox(opts.name, opts.workdir, docker, container, shell, disk);
    } catch (err) {
      shell.close();
      await container.remove({ force: true, v: true }).catch(() => undefined);
      await disk?.release().catch(() => undefined);
      if (opts.signal?.aborted && err === opts.signal.reason) throw err;
      throw toSandboxError(err, {
        docker,
        doing: `starting sandbox ${opts.name}`,
        container: container.id,
        fallback: 'SANDBOX_IO',
      });
    }
  }

  /**
   * Removes (with their volumes) engiloop containers whose creating process is dead on this host.
   * Containers of this process are kept unless `includeOwn`; containers of other hosts are kept.
   * Returns how many were removed.
   */
  async removeOrphans(opts: RemoveOrphansOptions = {}): Promise<number> {
    const doing = 'removing orphaned sandboxes';
    let list: Docker.ContainerInfo[];
    try {
      list = await this.docker.listContainers({ all: true, filters: { label: orphanFilters(opts) } });
    } catch (err) {
      throw toSandboxError(err, { docker: this.docker, doing, fallback: 'DOCKER_UNREACHABLE' });
    }
    let removed = 0;
    for (const c of list) {
      if (!orphaned(c.Labels, opts)) continue;
      try {
        await this.docker.getContainer(c.Id).remove({ force: true, v: true });
        removed++;
      } catch (err) {
        const s = statusOf(err);
        if (s === 404 || s === 409) continue; // removed meanwhile by someone else
        throw toSandboxError(err, { docker: this.docker, doing, fallback: 'DOCKER_UNREACHABLE' });
      }
    }
    return removed + (await this.removeOrphanDisks(opts));
  }

  /** Workspace volumes (and their loop devices) of dead engiloop processes, as for containers. */
  private async removeOrphanDisks(opts: RemoveOrphansOptions): Promise<number> {
    let volumes: Docker.VolumeInspectInfo[];
    try {
      volumes = (await this.docker.listVolumes({ filters: { label: orphanFilters(opts) } })).Volumes ?? [];
    } catch (err) {
      throw toSandboxError(err, {
        docker: this.docker,
        doing: 'listing workspace volumes',
        fallback: 'DOCKER_UNREACHABLE',
      });
    }
    let removed = 0;
    for (const v of volumes) {
      const labels = v.Labels ?? {};
      const device = labels[`${LABEL}.device`];
      if (device === undefined || !orphaned(labels, opts)) continue;
      // A volume still in use (its container is being removed by someone else) refuses: skip it.
      await removeLimitedDisk(this.docker, v.Name, device).then(
        () => removed++,
        () => undefined,
      );
    }
    return removed;
  }
}
