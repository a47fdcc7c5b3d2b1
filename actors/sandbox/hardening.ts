/**
 * Container options shared by every sandbox and tool container: hardened by default.
 * Network none, all capabilities dropped, no-new-privileges, memory / CPU / pids limits, no
 * container log (nothing an agent prints can reach the host's disk), read-only root filesystem
 * with a writable workspace volume (size-limited: see disk.ts) and size-limited tmpfs /tmp and
 * /dev/shm.
 *
 * The container's own process (init and `sleep infinity`) runs as root without capabilities; every
 * command runs as uid 1000 (`docker exec --user`). So `kill -9 -1` from the agent kills the agent's
 * processes but never the container: the shell is restarted and the episode goes on.
 */
import type Docker from 'dockerode';
import { MASKED_PATHS } from './proc-files.js';

/** Label put on every container engiloop creates; orphan clean-up finds them by it. */
export const LABEL = 'io.engiloop';

export interface HardenedOptions {
  image: string;
  /** Writable workspace: the volume `workspaceVolume`, or an anonymous one removed with the container. */
  workdir: string;
  /** Named (size-limited) volume mounted at `workdir`. */
  workspaceVolume?: string;
  /** Size of the /tmp tmpfs (also HOME), MiB. Default 512. */
  tmpMb?: number;
  /** Size of /dev/shm, MiB. Default 64. */
  shmMb?: number;
  /** Host file shown read-only as the sandbox's /proc/meminfo (see proc-files.ts). */
  meminfo?: string;
  cpus: number;
  memoryMb: number;
  pids: number;
  /** Extra labels (run id, episode id, sandbox name). */
  labels?: Record<string, string>;
  /** Container command; default keeps the container alive until removed. */
  cmd?: string[];
  env?: Record<string, string>;
  name?: string;
  /**
   * OCI runtime registered with the engine (`runsc` for gVisor; see deploy/gvisor/FINDINGS.md).
   * Default: `ENGILOOP_RUNTIME`, else the engine's default (runc).
   */
  runtime?: string;
}

/** The runtime sandboxes use: `ENGILOOP_RUNTIME` when set (e.g. `runsc`), else the engine's default. */
export function sandboxRuntime(): string | undefined {
  const r = process.env.ENGILOOP_RUNTIME?.trim();
  return r ? r : undefined;
}

/** Builds dockerode `createContainer` options for a hardened sandbox. */
export function hardenedContainerOptions(o: HardenedOptions): Docker.ContainerCreateOptions {
  const runtime = o.runtime ?? sandboxRuntime();
  return {
    Image: o.image,
    ...(o.name === undefined ? {} : { name: o.name }),
    Cmd: o.cmd ?? ['sleep', 'infinity'],
    // Root without capabilities, so the agent's uid 1000 cannot signal it (see the module doc).
    User: '0:0',
    WorkingDir: o.workdir,
    // PYTHONDONTWRITEBYTECODE: Python (and freecadcmd) reuse a cached .pyc when a script is rewritten
    // within the same second at the same size, silently running the old script.
    Env: Object.entries({
      HOME: '/tmp',
      LANG: 'C.UTF-8',
      OMP_NUM_THREADS: '1',
      PYTHONDONTWRITEBYTECODE: '1',
      ...o.env,
    }).map(([k, v]) => `${k}=${v}`),
    Labels: { [LABEL]: '1', [`${LABEL}.pid`]: String(process.pid), ...o.labels },
    NetworkDisabled: true,
    HostConfig: {
      ...(runtime ? { Runtime: runtime } : {}),
      NetworkMode: 'none',
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      ReadonlyRootfs: true,
      Memory: o.memoryMb * 1024 * 1024,
      MemorySwap: o.memoryMb * 1024 * 1024,
      NanoCpus: Math.round(o.cpus * 1e9),
      PidsLimit: o.pids,
      Tmpfs: { '/tmp': `rw,exec,nosuid,nodev,size=${o.tmpMb ?? 512}m,mode=1777` },
      ShmSize: (o.shmMb ?? 64) * 1024 * 1024,
      // An empty Source makes an anonymous volume (removed with the container by `v: true`).
      Mounts: [
        { Type: 'volume', Source: o.workspaceVolume ?? '', Target: o.workdir },
        ...(o.meminfo
          ? [{ Type: 'bind' as const, Source: o.meminfo, Target: '/proc/meminfo', ReadOnly: true }]
          : []),
      ],
      MaskedPaths: MASKED_PATHS,
      LogConfig: { Type: 'none', Config: {} },
      AutoRemove: false,
      Init: true,
    },
  };
}
