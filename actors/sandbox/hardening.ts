/**
 * Container options shared by every sandbox and tool container: hardened by default.
 * Network none, non-root user, all capabilities dropped, no-new-privileges, memory / CPU / pids
 * limits, read-only root filesystem with a writable workspace volume and a tmpfs /tmp.
 */
import type Docker from 'dockerode';

/** Label put on every container engiloop creates; orphan clean-up finds them by it. */
export const LABEL = 'io.engiloop';

export interface HardenedOptions {
  image: string;
  /** Writable workspace (an anonymous volume, removed with the container). */
  workdir: string;
  cpus: number;
  memoryMb: number;
  pids: number;
  /** Extra labels (run id, episode id, sandbox name). */
  labels?: Record<string, string>;
  /** Container command; default keeps the container alive until removed. */
  cmd?: string[];
  env?: Record<string, string>;
  name?: string;
}

/** Builds dockerode `createContainer` options for a hardened sandbox. */
export function hardenedContainerOptions(o: HardenedOptions): Docker.ContainerCreateOptions {
  return {
    Image: o.image,
    ...(o.name === undefined ? {} : { name: o.name }),
    Cmd: o.cmd ?? ['sleep', 'infinity'],
    User: '1000:1000',
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
      NetworkMode: 'none',
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      ReadonlyRootfs: true,
      Memory: o.memoryMb * 1024 * 1024,
      MemorySwap: o.memoryMb * 1024 * 1024,
      NanoCpus: Math.round(o.cpus * 1e9),
      PidsLimit: o.pids,
      Tmpfs: { '/tmp': 'rw,exec,nosuid,size=512m,mode=1777' },
      // An empty Source makes an anonymous volume (removed with the container by `v: true`).
      Mounts: [{ Type: 'volume', Source: '', Target: o.workdir }],
      AutoRemove: false,
      Init: true,
    },
  };
}
