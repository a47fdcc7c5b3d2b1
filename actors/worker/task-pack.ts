/**
 * Task folders travel with their jobs: `submit` packs a folder into a tar stored in the object
 * store by SHA-256; a worker on any machine unpacks it once into its cache. Packing checks the
 * folder as loading does (`taskFolderFiles` of tasks/): a link out of the folder, a pipe, a socket,
 * a device or an oversized file is a `TaskLoadError`, not skipped, so `submit` and `run` accept the
 * same folders; a link to a file inside the folder is packed as that file.
 */
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { extract, pack } from 'tar-stream';
import {
  MAX_TASK_FILE_BYTES,
  MAX_TASK_FOLDER_BYTES,
  readTaskFile,
  relPathProblem,
  taskFolderFiles,
  TaskLoadError,
} from '../../tasks/index.js';

/**
 * A deterministic tar of `dir` (sorted entries, zero mtimes), so equal folders have equal digests.
 * @throws TaskLoadError naming each file of the folder that cannot be packed.
 */
export async function packTask(dir: string): Promise<Buffer> {
  const { files, problems } = await taskFolderFiles(dir);
  if (problems.length > 0) throw TaskLoadError.of(problems);
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => void chunks.push(c as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    tar.on('end', resolve);
    tar.on('error', reject);
  });
  for (const f of files)
    tar.entry({ name: f.rel, mtime: new Date(0), mode: 0o644 }, await readTaskFile(dir, f.rel));
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** Why an entry of a task tar is refused: only files with safe names and sizes are unpacked. */
function badEntry(
  h: { name: string; type?: string | null; size?: number | null },
  total: number,
): string | null {
  if (h.type === 'directory') return null;
  if (h.type !== 'file')
    return `entry ${JSON.stringify(h.name)} is a ${h.type ?? 'special'} entry, not a file`;
  const name = relPathProblem(h.name);
  if (name) return `entry ${JSON.stringify(h.name)}: ${name}`;
  if ((h.size ?? 0) > MAX_TASK_FILE_BYTES)
    return `entry ${h.name} is ${h.size} bytes (at most ${MAX_TASK_FILE_BYTES})`;
  if (total + (h.size ?? 0) > MAX_TASK_FOLDER_BYTES)
    return `entries add up to more than ${MAX_TASK_FOLDER_BYTES} bytes`;
  return null;
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
  let total = 0;
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (h, stream, next) => {
      const bad = badEntry(h, total);
      if (bad) {
        stream.resume();
        return next(new Error(`unsafe task tar: ${bad}`));
      }
      total += h.size ?? 0;
      const parts: Buffer[] = [];
      stream.on('data', (c: unknown) => void parts.push(c as Buffer));
      stream.on('end', () => {
        if (h.type === 'directory') return next();
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
  try {
    await done;
    await Promise.all(writes);
  } catch (e) {
    await Promise.allSettled(writes);
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
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
