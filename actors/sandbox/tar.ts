/**
 * In-memory tar archives for `putArchive`/`getArchive`, and the check on workspace-relative paths.
 */
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { extract, pack } from 'tar-stream';
import { SandboxError } from './errors.js';

/** Owner of everything written into a sandbox: the `engi` user of our images. */
const OWNER = { uid: 1000, gid: 1000, uname: 'engi', gname: 'engi' } as const;

/**
 * Normalises a path relative to the workdir; throws `SANDBOX_IO` for an absolute path, a `..`
 * segment or an empty path.
 * @example relativePath('./a//b.txt') // 'a/b.txt'
 */
export function relativePath(p: string): string {
  if (p.length === 0 || p.startsWith('/') || p.includes('\0')) {
    throw new SandboxError('SANDBOX_IO', `Path must be relative to the workdir: ${JSON.stringify(p)}`);
  }
  if (p.split(/[/\\]/).includes('..')) {
    throw new SandboxError('SANDBOX_IO', `Path may not contain '..': ${JSON.stringify(p)}`);
  }
  const n = posix.normalize(p).replace(/\/+$/, '');
  if (n === '.' || n === '') throw new SandboxError('SANDBOX_IO', `Path names no file: ${JSON.stringify(p)}`);
  return n;
}

/** Every parent directory of the paths, parents first: `a/b/c.txt` → `a`, `a/b`. */
function parentDirs(paths: string[]): string[] {
  const dirs = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs].sort();
}

/** Builds a tar of `files` (paths already checked) with their parent dirs, all owned by uid 1000. */
export async function packFiles(files: { dest: string; content: Buffer }[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c: unknown) => {
    chunks.push(c as Buffer);
  });
  const ended = new Promise<void>((resolve, reject) => {
    p.on('end', resolve);
    p.on('error', reject);
  });
  const mtime = new Date();
  for (const dir of parentDirs(files.map((f) => f.dest))) {
    p.entry({ name: `${dir}/`, type: 'directory', mode: 0o755, mtime, ...OWNER });
  }
  for (const f of files) {
    p.entry({ name: f.dest, type: 'file', mode: 0o644, size: f.content.length, mtime, ...OWNER }, f.content);
  }
  p.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/** A tar (as a stream) of one file `dest` of `size` bytes read from `data`, with its parent dirs. */
export function packStream(dest: string, size: number, data: Readable): Readable {
  const p = pack();
  const mtime = new Date();
  for (const dir of parentDirs([dest]))
    p.entry({ name: `${dir}/`, type: 'directory', mode: 0o755, mtime, ...OWNER });
  const entry = p.entry({ name: dest, type: 'file', mode: 0o644, size, mtime, ...OWNER }, (err) => {
    if (err) p.destroy(err);
    else p.finalize();
  });
  data.on('error', (err) => p.destroy(err));
  data.pipe(entry);
  return p as unknown as Readable;
}

/**
 * Hands the first entry of a tar stream to `consume` (its header and its data as a stream, which
 * `consume` must read or leave); `null` for an empty archive. The rest is never read.
 */
export async function firstEntry<T>(
  tarStream: Readable,
  consume: (header: Headers, data: Readable) => Promise<T>,
): Promise<T | null> {
  const ex = extract();
  tarStream.on('error', (err) => ex.destroy(err));
  tarStream.pipe(ex);
  try {
    for await (const entry of ex) return await consume(entry.header, entry as unknown as Readable);
    return null;
  } finally {
    tarStream.unpipe(ex);
    tarStream.destroy();
    ex.destroy();
  }
}

type Headers = { type?: string | null; size?: number };
