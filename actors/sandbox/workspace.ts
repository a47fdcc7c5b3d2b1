/**
 * Workspace snapshots: a sandbox's writable state (its workdir volume and its /tmp tmpfs, which is
 * also HOME) as one gzipped tar, saved to the object store so a resumed episode restores it instead
 * of re-running every action from the start.
 *
 * The archive API cannot see a tmpfs, so both directions go through `tar` inside the container:
 * out through a fresh exec's stdout, in through a file dropped in the workspace and unpacked there.
 * X server sockets and locks (`/tmp/.X*`) are left out: a restored desktop starts its own.
 */
import type Docker from 'dockerode';
import { toSandboxError } from './docker-errors.js';
import { SandboxError } from './errors.js';
import { execOnce } from './exec-once.js';
import { putFiles } from './files.js';

interface WorkspaceHost {
  docker: Docker;
  container: Docker.Container;
  workdir: string;
}

const INCOMING = '.engiloop-restore.tgz';
const EXCLUDES = ['--exclude=./tmp/.X*', '--exclude=./tmp/.engiloop-*', `--exclude=*/${INCOMING}`];

/** Saves the workdir and /tmp as a gzipped tar (paths relative to `/`). */
export async function snapshotWorkspace(host: WorkspaceHost): Promise<Buffer> {
  const dir = host.workdir.replace(/^\/+|\/+$/g, '');
  try {
    const r = await execOnce(
      host.docker,
      host.container,
      [
        'tar',
        '-czf',
        '-',
        '-C',
        '/',
        '--ignore-failed-read',
        '--warning=no-file-changed',
        ...EXCLUDES,
        `./${dir}`,
        './tmp',
      ],
      { user: '1000' },
    );
    // tar: 1 = "some files differed" (changed while read), which is fine for a snapshot.
    if (r.exitCode !== 0 && r.exitCode !== 1)
      throw new SandboxError(
        'SANDBOX_IO',
        `snapshot of ${host.workdir} failed: ${r.stderr.toString().trim()}`,
      );
    return r.stdout;
  } catch (err) {
    throw toSandboxError(err, {
      docker: host.docker,
      doing: `taking a snapshot of ${host.workdir}`,
      container: host.container.id,
      fallback: 'SANDBOX_IO',
    });
  }
}

/** Restores a {@link snapshotWorkspace} archive into a fresh sandbox (same workdir). */
export async function restoreWorkspace(host: WorkspaceHost, tgz: Buffer): Promise<void> {
  await putFiles(host, [{ dest: INCOMING, content: tgz }]);
  const file = `${host.workdir.replace(/\/+$/, '')}/${INCOMING}`;
  // The top directories themselves (/tmp is root's, mode 1777) are not ours to chmod: skip their
  // entries and unpack only what is inside them.
  const parts = host.workdir.split('/').filter(Boolean);
  const tops = ['./tmp', ...parts.map((_, i) => `./${parts.slice(0, i + 1).join('/')}`)];
  try {
    const r = await execOnce(
      host.docker,
      host.container,
      [
        'bash',
        '-c',
        'f=$1; shift; tar -xzf "$f" -C / --no-overwrite-dir --no-recursion --anchored "$@"; rc=$?; rm -f "$f"; exit $rc',
        'restore',
        file,
        ...tops.map((t) => `--exclude=${t}`),
      ],
      { user: '1000' },
    );
    if (r.exitCode !== 0)
      throw new SandboxError(
        'SANDBOX_IO',
        `restoring a snapshot into ${host.workdir} failed: ${r.stderr.toString().trim()}`,
      );
  } catch (err) {
    throw toSandboxError(err, {
      docker: host.docker,
      doing: `restoring a snapshot into ${host.workdir}`,
      container: host.container.id,
      fallback: 'SANDBOX_IO',
    });
  }
}
