/**
 * Copying files into and out of a sandbox's workspace through the engine's archive API (works
 * with a read-only root: the workspace is a volume).
 */
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { statusOf, toSandboxError } from './docker-errors.js';
import { firstRegularFile, packFiles, relativePath } from './tar.js';

/** Where the files go. */
export interface FilesHost {
  docker: Docker;
  container: Docker.Container;
  workdir: string;
}

/**
 * Whether the container is gone. dockerode words every 404 of the archive API "no such container",
 * even a missing path, so the engine is asked.
 */
async function containerGone(host: FilesHost): Promise<boolean> {
  try {
    await host.container.inspect();
    return false;
  } catch (err) {
    return statusOf(err) === 404;
  }
}

/**
 * Writes `files` (paths relative to the workdir) into the workspace, owned by uid 1000, creating
 * parent directories. Throws `SANDBOX_IO` for a bad path or a failed copy, `CONTAINER_GONE` when
 * the container no longer exists.
 */
export async function putFiles(host: FilesHost, files: { dest: string; content: Buffer }[]): Promise<void> {
  if (files.length === 0) return;
  const checked = files.map((f) => ({ dest: relativePath(f.dest), content: f.content }));
  const tar = await packFiles(checked);
  try {
    await host.container.putArchive(tar, { path: host.workdir });
  } catch (err) {
    throw toSandboxError(err, {
      docker: host.docker,
      doing: `copying ${files.length} file(s) into ${host.workdir}`,
      ...((await containerGone(host)) ? { container: host.container.id } : {}),
      fallback: 'SANDBOX_IO',
    });
  }
}

/**
 * Reads one file of the workspace; `null` when it does not exist or is not a regular file (a
 * directory, a symlink). Throws `SANDBOX_IO` for a bad path, `CONTAINER_GONE` when the container
 * no longer exists.
 */
export async function getFile(host: FilesHost, path: string): Promise<Buffer | null> {
  const rel = relativePath(path);
  const full = `${host.workdir.replace(/\/+$/, '')}/${rel}`;
  let stream: Readable;
  try {
    stream = (await host.container.getArchive({ path: full })) as Readable;
  } catch (err) {
    const gone = statusOf(err) === 404 && (await containerGone(host));
    if (statusOf(err) === 404 && !gone) return null;
    throw toSandboxError(err, {
      docker: host.docker,
      doing: `reading ${full}`,
      ...(gone ? { container: host.container.id } : {}),
      fallback: 'SANDBOX_IO',
    });
  }
  try {
    return await firstRegularFile(stream);
  } catch (err) {
    throw toSandboxError(err, { docker: host.docker, doing: `reading ${full}`, fallback: 'SANDBOX_IO' });
  }
}
