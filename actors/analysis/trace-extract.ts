/**
 * Deliverables out of a workspace snapshot (a gzipped tar of `./<workdir>` and `./tmp`, see
 * actors/sandbox/workspace.ts), on the host, with no sandbox. The archive is read as hostile: it is
 * streamed entry by entry, only the wanted entries are written, each to a host path computed from
 * the deliverable (never from the entry's name), only regular files are taken, a deliverable named
 * through `..` or an absolute path or under a symbolic link is refused, a file over the cap is
 * refused before a byte of it is read, and the whole archive stops at `totalCapBytes` unpacked.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { posix } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { sizeText } from '../../tasks/index.js';

/** One file wanted from the archive. */
export interface WantedEntry {
  /** Its name in the archive, normalised (no `./`): `workspace/part.stl`. */
  entry: string;
  /** Host path it is written to. */
  dest: string;
}

/** What became of a wanted entry. */
export type Extracted =
  { kind: 'file'; bytes: number; mtime: number } | { kind: 'missing' } | { kind: 'refused'; reason: string };

/**
 * The archive path of `rel` (relative to the sandbox's `workdir`).
 * @example archiveName('/workspace', './out/part.stl') // 'workspace/out/part.stl'
 */
export function archiveName(workdir: string, rel: string): string {
  return posix.normalize(`${workdir.replace(/^\/+|\/+$/g, '')}/${rel}`).replace(/\/+$/, '');
}

/** `name` without leading `./`, and whether it tries to leave the archive's root. */
function entryName(name: string): { name: string; unsafe: boolean } {
  const unsafe = name.startsWith('/') || name.split(/[/\\]/).includes('..') || name.includes('\0');
  const n = posix
    .normalize(name.replace(/^\/+/, ''))
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
  return { name: n, unsafe };
}

/** Counts the bytes passing through; fails past `cap`. */
function counter(cap: number): Transform {
  let n = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      n += chunk.length;
      if (n > cap)
        cb(new Error(`the snapshot unpacks to more than ${sizeText(cap)}, more than the sandbox could hold`));
      else cb(null, chunk);
    },
  });
}

/**
 * Writes the `wanted` entries of the gzipped tar `tgz` to their `dest`. Every wanted entry gets an
 * outcome; later entries of the same name replace earlier ones (as tar would). An archive that is
 * not a gzipped tar, or unpacks past `totalCapBytes`, leaves the entries not yet seen `refused`.
 * @example
 * ```ts
 * const got = await extractEntries(tgz, [{ entry: 'workspace/part.stl', dest }], 16 * 2 ** 20, 2 ** 31);
 * ```
 */
export async function extractEntries(
  tgz: Buffer | (() => Readable),
  wanted: readonly WantedEntry[],
  fileCapBytes: number,
  totalCapBytes: number,
): Promise<Map<string, Extracted>> {
  const open = () => (Buffer.isBuffer(tgz) ? Readable.from([tgz]) : tgz());
  const { out, hard } = await onePass(open(), wanted, fileCapBytes, totalCapBytes);
  // A hard link is a regular file in the sandbox whose bytes tar stored under another name: take
  // them from there, in a second pass (once: a link to a link is refused).
  for (const [w, target] of hard) {
    const again = await onePass(open(), [{ entry: target, dest: w.dest }], fileCapBytes, totalCapBytes);
    const got = again.out.get(target)!;
    const rel = w.entry.split('/').slice(1).join('/');
    out.set(
      w.entry,
      got.kind === 'file'
        ? got
        : { kind: 'refused', reason: `${rel} is a hard link to ${target}, which could not be taken` },
    );
  }
  for (const w of wanted) if (out.get(w.entry)?.kind !== 'file') await rm(w.dest, { force: true });
  return out;
}

async function onePass(
  source: Readable,
  wanted: readonly WantedEntry[],
  fileCapBytes: number,
  totalCapBytes: number,
): Promise<{ out: Map<string, Extracted>; hard: Map<WantedEntry, string> }> {
  const out = new Map<string, Extracted>(wanted.map((w) => [w.entry, { kind: 'missing' }]));
  const byName = new Map(wanted.map((w) => [w.entry, w]));
  const links = new Map<string, string>();
  const hard = new Map<WantedEntry, string>();
  const ex = extract();
  const piped = pipeline(source, createGunzip(), counter(totalCapBytes), ex);
  piped.catch(() => undefined); // seen below, through the extractor's iteration
  try {
    for await (const entry of ex) {
      const h = entry.header;
      const { name, unsafe } = entryName(h.name);
      if (h.type === 'symlink') links.set(name, h.linkname ?? '?');
      const w = byName.get(name);
      if (!w) {
        entry.resume();
        continue;
      }
      const refuse = (reason: string) => {
        hard.delete(w);
        out.set(name, { kind: 'refused', reason });
        entry.resume();
      };
      const rel = name.split('/').slice(1).join('/');
      const parent = ancestorLink(name, links);
      if (unsafe)
        refuse(`${rel}: the snapshot names it through ${JSON.stringify(h.name)}, outside the workdir`);
      else if (parent)
        refuse(
          `${parent.dir} is a symbolic link (to ${parent.to}); files are only taken from real directories of the workspace`,
        );
      else if (h.type === 'symlink')
        refuse(`${rel} is a symbolic link (to ${h.linkname ?? '?'}), not a regular file`);
      else if (h.type === 'link') {
        const target = entryName(h.linkname ?? '');
        if (target.unsafe || target.name === name)
          refuse(`${rel} is a hard link to ${JSON.stringify(h.linkname)}`);
        else {
          hard.set(w, target.name);
          out.set(name, { kind: 'missing' });
        }
        entry.resume();
      } else if (h.type !== 'file' && h.type !== 'contiguous-file')
        refuse(
          `${rel} is ${h.type === 'directory' ? 'a directory' : `a ${h.type ?? 'special'} entry`}, not a regular file`,
        );
      else if ((h.size ?? 0) > fileCapBytes)
        refuse(
          `${rel} is ${sizeText(h.size!)} (${h.size} bytes), over the ${sizeText(fileCapBytes)} cap on a file taken out of a sandbox (limits.file_cap_mb)`,
        );
      else {
        await mkdir(dirname(w.dest), { recursive: true });
        await pipeline(entry, createWriteStream(w.dest));
        hard.delete(w);
        out.set(name, { kind: 'file', bytes: h.size ?? 0, mtime: h.mtime?.getTime() ?? 0 });
      }
    }
    await piped;
  } catch (e) {
    const why = `the snapshot could not be read: ${(e as Error).message}`;
    for (const [k, v] of out) if (v.kind === 'missing') out.set(k, { kind: 'refused', reason: why });
  } finally {
    ex.destroy();
    source.destroy();
  }
  return { out, hard };
}

/** The nearest directory of `name` that the archive recorded as a link, with its target. */
function ancestorLink(name: string, links: ReadonlyMap<string, string>): { dir: string; to: string } | null {
  const parts = name.split('/');
  for (let i = 2; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const to = links.get(dir);
    if (to !== undefined) return { dir: parts.slice(1, i).join('/'), to };
  }
  return null;
}
