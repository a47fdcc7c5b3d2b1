/**
 * Workspace snapshots: a sandbox's writable state (its workdir volume and its /tmp tmpfs, which is
 * also HOME) as one gzipped tar, saved to the object store so a resumed episode restores it instead
 * of re-running every action from the start.
 *
 * The archive API cannot see a tmpfs, so both directions go through `tar` inside the container:
 * out through a fresh exec's stdout, in through a file dropped in the workspace and unpacked there.
 * X server sockets and locks (`/tmp/.X*`) are left out: a restored desktop starts its own.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Writable } from 'node:stream';
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

const tarArgs = (workdir: string): string[] => [
  'tar',
  '-czf',
  '-',
  '-C',
  '/',
  '--ignore-failed-read',
  '--warning=no-file-changed',
  // A sparse file is stored as its data, not as gigabytes of zeros.
  '--sparse',
  ...EXCLUDES,
  `./${workdir.replace(/^\/+|\/+$/g, '')}`,
  './tmp',
];

/** A snapshot streamed to a host file, or the size it passed its cap at. */
export type SnapshotOut =
  | { ok: true; sha256: string; bytes: number }
  | {
      ok: false;
      bytes: number;
      cap: number;
      /** Files tar could not read (the agent's chmod). */ error?: string;
    };

/** tar's complaints about files it could not read: the archive would silently miss them. */
const UNREADABLE = /Cannot (open|savedir|stat|readlink)|Permission denied/;

/**
 * Streams the workdir and /tmp as a gzipped tar (paths relative to `/`) to `dest` on the host,
 * hashing it on the way, and stops (removing `dest`) as soon as it passes `capBytes`: memory stays
 * flat.
 */
export async function snapshotWorkspaceTo(
  host: WorkspaceHost,
  dest: string,
  capBytes: number,
): Promise<SnapshotOut> {
  const doing = `taking a snapshot of ${host.workdir}`;
  try {
    const exec = await host.container.exec({
      Cmd: tarArgs(host.workdir),
      AttachStdout: true,
      AttachStderr: true,
      User: '1000:1000',
    });
    const stream = await exec.start({ hijack: true, stdin: false });
    const hash = createHash('sha256');
    const file = createWriteStream(dest);
    const err: Buffer[] = [];
    let bytes = 0;
    let over = false;
    const out = new Writable({
      write(chunk: Buffer, _enc, cb) {
        bytes += chunk.length;
        if (over || bytes > capBytes) {
          over = true;
          stream.destroy();
          return cb();
        }
        hash.update(chunk);
        file.write(chunk, cb);
      },
    });
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        if (err.length < 64) err.push(chunk);
        cb();
      },
    });
    // Every stream's error is caught from the start: an unhandled one would crash the harness.
    let failed: unknown = null;
    for (const w of [out, file, sink]) w.on('error', (e: unknown) => (failed ??= e));
    host.docker.modem.demuxStream(stream, out, sink);
    await new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', (e) => {
        if (!over) failed ??= e;
        resolve();
      });
    });
    // demuxStream never ends its targets, and `out` may still hold chunks: drain it, then the file.
    await new Promise<void>((resolve) => out.end(resolve));
    await new Promise<void>((resolve) => (file.destroyed ? resolve() : file.end(resolve)));
    if (failed) {
      file.destroy();
      throw failed;
    }
    if (over) {
      await rm(dest, { force: true });
      return { ok: false, bytes, cap: capBytes };
    }
    let info = await exec.inspect();
    for (let i = 0; info.Running && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 2));
      info = await exec.inspect();
    }
    const said = Buffer.concat(err).toString().trim();
    if (UNREADABLE.test(said)) {
      await rm(dest, { force: true });
      return { ok: false, bytes, cap: capBytes, error: said.split('\n').slice(0, 3).join('; ') };
    }
    if (info.ExitCode !== 0 && info.ExitCode !== 1)
      throw new SandboxError('SANDBOX_IO', `snapshot of ${host.workdir} failed: ${said}`);
    return { ok: true, sha256: hash.digest('hex'), bytes };
  } catch (err) {
    throw toSandboxError(err, {
      docker: host.docker,
      doing,
      container: host.container.id,
      fallback: 'SANDBOX_IO',
    });
  }
}

/** Restores a {@link snapshotWorkspaceTo} archive into a fresh sandbox (same workdir). */
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
