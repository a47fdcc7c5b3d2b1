/**
 * Copying files into and out of a sandbox's workspace through the engine's archive API (works
 * with a read-only root: the workspace is a volume).
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Docker from 'dockerode';
import { statusOf, toSandboxError } from './docker-errors.js';
import { sizeText } from '../../tasks/index.js';
import { SandboxError } from './errors.js';
import { firstEntry, packFiles, packStream, relativePath } from './tar.js';

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

/** How the engine describes a path (`X-Docker-Container-Path-Stat`). */
interface PathStat {
  name: string;
  size: number;
  mode: number;
  mtime: string;
  linkTarget: string;
}

const MODE_DIR = 2 ** 31;
const MODE_SYMLINK = 2 ** 27;
/** Go's `os.ModeType`: directory, symlink, named pipe, socket, device, char device, irregular. */
const MODE_TYPE = MODE_DIR + MODE_SYMLINK + 2 ** 25 + 2 ** 24 + 2 ** 26 + 2 ** 21 + 2 ** 19;

function parseStat(header: unknown): PathStat | null {
  if (typeof header !== 'string') return null;
  try {
    return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as PathStat;
  } catch {
    return null;
  }
}

/** Why a file was not taken out of a sandbox (a result, not an error: the agent's doing). */
export type FileRefusal =
  | { kind: 'missing'; message: string }
  | { kind: 'not_regular'; message: string }
  | { kind: 'outside'; message: string }
  | { kind: 'too_large'; message: string; size: number; cap: number };

/** A file taken out of a sandbox, or why not. `mtime`: ms since the epoch. */
export type FileOut<T> =
  { ok: true; value: T; size: number; mtime: number } | { ok: false; refusal: FileRefusal };

async function statPath(host: FilesHost, full: string): Promise<PathStat | null> {
  try {
    const res = (await host.container.infoArchive({ path: full })) as {
      headers?: Record<string, unknown>;
    } & Readable;
    res.resume?.();
    return parseStat(res.headers?.['x-docker-container-path-stat']);
  } catch (err) {
    const gone = statusOf(err) === 404 && (await containerGone(host));
    if (statusOf(err) === 404 && !gone) return null;
    throw toSandboxError(err, {
      docker: host.docker,
      doing: `looking up ${full}`,
      ...(gone ? { container: host.container.id } : {}),
      fallback: 'SANDBOX_IO',
    });
  }
}

/**
 * Opens `path` (relative to the workdir) for reading, refusing without reading a byte: a path
 * whose directories include a symbolic link (resolved inside the workspace only: a link is never
 * followed), a final component that is not a regular file, and a file whose apparent size (a
 * sparse file counts in full) is over `capBytes`. `consume` gets the file's bytes as a stream.
 */
async function withFile<T>(
  host: FilesHost,
  path: string,
  capBytes: number,
  consume: (data: Readable, size: number) => Promise<T>,
): Promise<FileOut<T>> {
  const rel = relativePath(path);
  const root = host.workdir.replace(/\/+$/, '');
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const st = await statPath(host, `${root}/${dir}`);
    if (st === null) return { ok: false, refusal: { kind: 'missing', message: `${rel} does not exist` } };
    if ((st.mode & MODE_SYMLINK) !== 0)
      return {
        ok: false,
        refusal: {
          kind: 'outside',
          message: `${dir} is a symbolic link (to ${st.linkTarget || '?'}); files are only taken from real directories of the workspace`,
        },
      };
    if ((st.mode & MODE_DIR) === 0)
      return { ok: false, refusal: { kind: 'missing', message: `${dir} is not a directory` } };
  }
  const full = `${root}/${rel}`;
  const st = await statPath(host, full);
  if (st === null) return { ok: false, refusal: { kind: 'missing', message: `${rel} does not exist` } };
  if ((st.mode & MODE_TYPE) !== 0) {
    const what =
      (st.mode & MODE_SYMLINK) !== 0
        ? `a symbolic link (to ${st.linkTarget || '?'})`
        : (st.mode & MODE_DIR) !== 0
          ? 'a directory'
          : 'not a regular file';
    return { ok: false, refusal: { kind: 'not_regular', message: `${rel} is ${what}, not a regular file` } };
  }
  const tooLarge = (size: number): FileOut<T> => ({
    ok: false,
    refusal: {
      kind: 'too_large',
      size,
      cap: capBytes,
      message: `${rel} is ${sizeText(size)} (${size} bytes), over the ${sizeText(capBytes)} cap on a file taken out of a sandbox (limits.file_cap_mb)`,
    },
  });
  if (st.size > capBytes) return tooLarge(st.size);
  let stream: Readable;
  try {
    stream = (await host.container.getArchive({ path: full })) as Readable;
  } catch (err) {
    const gone = await containerGone(host);
    if (statusOf(err) === 404 && !gone)
      return { ok: false, refusal: { kind: 'missing', message: `${rel} does not exist` } };
    throw toSandboxError(err, {
      docker: host.docker,
      doing: `reading ${full}`,
      ...(gone ? { container: host.container.id } : {}),
      fallback: 'SANDBOX_IO',
    });
  }
  const mtime = Date.parse(st.mtime);
  try {
    const r = await firstEntry(stream, async (header, data) => {
      if (header.type !== 'file' && header.type !== 'contiguous-file')
        return { refused: 'not_regular' as const };
      // The file may have grown since the look: the tar header is the size that is sent.
      if ((header.size ?? 0) > capBytes) return { refused: 'too_large' as const, size: header.size ?? 0 };
      return { value: await consume(data, header.size ?? 0), size: header.size ?? 0 };
    });
    if (r === null || 'refused' in r) {
      if (r?.refused === 'too_large') return tooLarge(r.size);
      return { ok: false, refusal: { kind: 'not_regular', message: `${rel} is not a regular file` } };
    }
    return { ok: true, value: r.value, size: r.size, mtime: Number.isNaN(mtime) ? 0 : mtime };
  } catch (err) {
    throw toSandboxError(err, { docker: host.docker, doing: `reading ${full}`, fallback: 'SANDBOX_IO' });
  }
}

/** Reads a file of the workspace into memory, up to `capBytes` (see {@link withFile} for refusals). */
export function readFileOut(host: FilesHost, path: string, capBytes: number): Promise<FileOut<Buffer>> {
  return withFile(host, path, capBytes, async (data) => {
    const parts: Buffer[] = [];
    for await (const c of data) parts.push(c as Buffer);
    return Buffer.concat(parts);
  });
}

/**
 * Streams a file of the workspace to `dest` on the host, up to `capBytes`, hashing it on the way:
 * memory stays flat whatever its size. Returns its SHA-256.
 */
export function copyFileOut(
  host: FilesHost,
  path: string,
  dest: string,
  capBytes: number,
): Promise<FileOut<string>> {
  return withFile(host, path, capBytes, async (data) => {
    const hash = createHash('sha256');
    await mkdir(dirname(dest), { recursive: true });
    await pipeline(
      data,
      new Transform({
        transform(chunk: Buffer, _enc, cb) {
          hash.update(chunk);
          cb(null, chunk);
        },
      }),
      createWriteStream(dest),
    );
    return hash.digest('hex');
  });
}

/**
 * Reads one file of the workspace; `null` when it does not exist or is not a regular file (a
 * directory, a symlink, a path through a symlink). At most `capBytes` (default 64 MiB): a bigger
 * file throws `SANDBOX_IO`. Throws `SANDBOX_IO` for a bad path, `CONTAINER_GONE` when the container
 * no longer exists.
 */
export async function getFile(
  host: FilesHost,
  path: string,
  capBytes = 64 * 2 ** 20,
): Promise<Buffer | null> {
  const r = await readFileOut(host, path, capBytes);
  if (r.ok) return r.value;
  if (r.refusal.kind === 'too_large') throw new SandboxError('SANDBOX_IO', r.refusal.message);
  return null;
}

/**
 * Streams the host file `hostPath` into the workspace as `dest` (owned by uid 1000, parents made):
 * memory stays flat whatever its size. Errors as {@link putFiles}.
 */
export async function putFileFrom(host: FilesHost, dest: string, hostPath: string): Promise<void> {
  const rel = relativePath(dest);
  const { size } = await stat(hostPath);
  const tar = packStream(rel, size, createReadStream(hostPath));
  try {
    await host.container.putArchive(tar, { path: host.workdir });
  } catch (err) {
    throw toSandboxError(err, {
      docker: host.docker,
      doing: `copying ${rel} into ${host.workdir}`,
      ...((await containerGone(host)) ? { container: host.container.id } : {}),
      fallback: 'SANDBOX_IO',
    });
  }
}
