/**
 * Task folders travel with their jobs: `submit` packs a folder into a tar stored in the object
 * store by SHA-256; a worker on any machine unpacks it once into its cache.
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative } from 'node:path';
import { extract, pack } from 'tar-stream';

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await files(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** A deterministic tar of `dir` (sorted entries, zero mtimes), so equal folders have equal digests. */
export async function packTask(dir: string): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => void chunks.push(c as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    tar.on('end', resolve);
    tar.on('error', reject);
  });
  for (const f of await files(dir))
    tar.entry({ name: relative(dir, f), mtime: new Date(0), mode: 0o644 }, await readFile(f));
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** Unpacks a task tar into `dest` (atomically: a half-written cache entry is never used). */
export async function unpackTask(tarBytes: Buffer, dest: string): Promise<void> {
  if (
    await stat(join(dest, 'task.yaml')).then(
      () => true,
      () => false,
    )
  )
    return;
  const tmp = `${dest}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await rm(tmp, { recursive: true, force: true });
  const ex = extract();
  const writes: Promise<void>[] = [];
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (h, stream, next) => {
      const parts: Buffer[] = [];
      stream.on('data', (c: unknown) => void parts.push(c as Buffer));
      stream.on('end', () => {
        const p = join(tmp, h.name);
        if (!p.startsWith(tmp + '/')) return next(new Error(`unsafe path in task tar: ${h.name}`));
        writes.push(mkdir(dirname(p), { recursive: true }).then(() => writeFile(p, Buffer.concat(parts))));
        next();
      });
    });
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  ex.end(tarBytes);
  await done;
  await Promise.all(writes);
  await mkdir(dirname(dest), { recursive: true });
  await rename(tmp, dest).catch(async (e: NodeJS.ErrnoException) => {
    await rm(tmp, { recursive: true, force: true });
    // Another worker (or slot) unpacked the same task first: theirs is as good as ours.
    if (
      !(await stat(join(dest, 'task.yaml')).then(
        () => true,
        () => false,
      ))
    )
      throw e;
  });
}
