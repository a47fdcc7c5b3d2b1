/**
 * The files of a task folder, checked the same way wherever they are read: by the loader (so
 * `tasks validate` reports them), by `run` when it provisions a sandbox, and by `submit` when it
 * packs the folder. A task folder holds regular files and folders only. A symbolic link is allowed
 * when it resolves to a regular file inside the task folder (it is read, and packed, as that file);
 * a link that leaves the folder, a named pipe, a socket or a device is refused, and so is a file
 * over {@link MAX_TASK_FILE_BYTES}: each would make the harness block, or read without end.
 */
import { constants } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { TaskLoadError, type TaskProblem } from './errors.js';
import { MAX_TASK_FILE_BYTES, MAX_TASK_FOLDER_BYTES, MAX_TASK_FOLDER_ENTRIES, sizeText } from './limits.js';

/** Options of {@link checkTaskFile} and {@link readTaskFile}. */
export interface TaskFileOptions {
  /** Accept a folder too (a verifier param may name one). Default false. */
  folder?: boolean;
  /** Largest file accepted, in bytes. Default {@link MAX_TASK_FILE_BYTES} (256 MiB). */
  maxBytes?: number;
}

/** Why a task file cannot be used; `message` names the file and the fix. */
export interface TaskFileProblem {
  kind: 'missing' | 'broken-link' | 'unreadable' | 'outside' | 'special' | 'folder' | 'too-big';
  message: string;
}

type Inspected = { problem: TaskFileProblem } | { real: string; size: number; folder: boolean };

const no = (kind: TaskFileProblem['kind'], message: string) => ({ problem: { kind, message } });

const inside = (root: string, p: string) => p === root || p.startsWith(root + sep);

/** What a file that is neither a regular file nor a folder is, for messages. */
function special(s: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean }): string {
  if (s.isFIFO()) return 'a named pipe (FIFO)';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice()) return 'a character device';
  return 'a block device';
}

const FIX_SPECIAL = 'a task folder holds regular files and folders only: replace it with a regular file';
const FIX_OUTSIDE = 'copy the file into the task folder instead of linking to it';

/** `300 MiB (314572800 bytes)`, or `16 bytes`. */
function bytesText(n: number): string {
  const m = sizeText(n);
  return m.endsWith(' bytes') ? m : `${m} (${n} bytes)`;
}

function tooBig(rel: string, size: number, max: number): string {
  return `"${rel}" is ${bytesText(size)}: a task file may be at most ${bytesText(max)}; make it smaller, or have the reference solution generate it`;
}

async function inspect(dir: string, rel: string, o: TaskFileOptions): Promise<Inspected> {
  const max = o.maxBytes ?? MAX_TASK_FILE_BYTES;
  const root = resolve(dir);
  const path = resolve(root, rel);
  if (!inside(root, path)) return no('outside', `"${rel}" is outside the task folder ${dir}`);
  const link = await lstat(path).catch((e: NodeJS.ErrnoException) => e);
  if (link instanceof Error)
    return link.code === 'ENOENT' || link.code === 'ENOTDIR'
      ? no('missing', `file "${rel}" not found in ${dir}`)
      : no('unreadable', `cannot read "${rel}": ${link.message}`);
  const linked = link.isSymbolicLink();
  const to = linked ? await readlink(path).catch(() => '?') : '';
  const real = await realpath(path).catch((e: NodeJS.ErrnoException) => e);
  if (real instanceof Error)
    return no(
      'broken-link',
      `"${rel}" is a symbolic link to ${to}, which ${real.code === 'ELOOP' ? 'loops' : 'does not exist'}: ${FIX_OUTSIDE}`,
    );
  if (!inside(await realpath(root), real))
    return no(
      'outside',
      `"${rel}" ${linked ? `is a symbolic link to ${to}` : `resolves to ${real} through a linked folder`}, outside the task folder: ${FIX_OUTSIDE}`,
    );
  const s = linked ? await stat(real) : link;
  const via = linked ? ` (a symbolic link to ${to})` : '';
  if (s.isDirectory())
    return o.folder
      ? { real, size: 0, folder: true }
      : no('folder', `"${rel}"${via} is a folder: name a file`);
  if (!s.isFile())
    return no('special', `"${rel}"${via} is ${special(s)}, not a regular file: ${FIX_SPECIAL}`);
  if (s.size > max) return no('too-big', tooBig(rel, s.size, max));
  return { real, size: s.size, folder: false };
}

/**
 * What is wrong with `rel` as a file of the task folder `dir`, or null when it can be read: it is
 * missing, a folder (unless `folder`), a link out of the folder, a named pipe, a socket, a device,
 * or bigger than `maxBytes`. The problem's `message` names `rel` and the fix.
 *
 * @example if (await checkTaskFile(dir, 'inputs/part.step')) … // refuse the task
 */
export async function checkTaskFile(
  dir: string,
  rel: string,
  o: TaskFileOptions = {},
): Promise<TaskFileProblem | null> {
  const r = await inspect(dir, rel, o);
  return 'problem' in r ? r.problem : null;
}

/** Why {@link readCapped} read nothing: the file cannot be opened, is not a regular file, or is too big. */
export interface ReadRefusal {
  kind: 'unreadable' | 'special' | 'too-big';
  /** What is wrong, to follow the file's name: `is a named pipe (FIFO), not a regular file: …`. */
  message: string;
  /** The file's size, for `too-big`. */
  size?: number;
}

/**
 * A regular file's bytes, at most `max`: never blocks on a named pipe nor reads a device, and stops
 * at `max + 1` bytes even when the file grows while it is read. With `noFollow`, a symbolic link
 * put in place of `path` after it was checked is refused too.
 */
export async function readCapped(
  path: string,
  max: number,
  o: { noFollow?: boolean } = {},
): Promise<Buffer | ReadRefusal> {
  // O_NONBLOCK: opening a FIFO returns at once; fstat then shows what was opened, whatever lstat said.
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (o.noFollow ? constants.O_NOFOLLOW : 0);
  const fh = await open(path, flags).catch((e: NodeJS.ErrnoException) => e);
  if (fh instanceof Error)
    return fh.code === 'ENXIO'
      ? { kind: 'special', message: `is a socket, not a regular file: ${FIX_SPECIAL}` }
      : { kind: 'unreadable', message: `cannot be read: ${fh.message}` };
  try {
    const s = await fh.stat();
    if (!s.isFile())
      return { kind: 'special', message: `is ${special(s)}, not a regular file: ${FIX_SPECIAL}` };
    const big = (size: number) => ({
      kind: 'too-big' as const,
      size,
      message: `is ${bytesText(size)}: at most ${bytesText(max)}`,
    });
    if (s.size > max) return big(s.size);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.alloc(Math.min(max + 1 - total, 1024 * 1024));
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total > max) return big(total);
    }
    return Buffer.concat(chunks, total);
  } finally {
    await fh.close();
  }
}

/**
 * Reads file `rel` of the task folder `dir` after {@link checkTaskFile}, at most `maxBytes`.
 * @throws TaskLoadError naming `task.yaml` and `field` when given (e.g. `inputs.files[0].src`),
 * else the file itself, with what is wrong and the fix.
 */
export async function readTaskFile(
  dir: string,
  rel: string,
  o: TaskFileOptions & { field?: string } = {},
): Promise<Buffer> {
  const fail = (message: string) =>
    new TaskLoadError(o.field ? join(dir, 'task.yaml') : join(dir, rel), o.field ?? '', message);
  const r = await inspect(dir, rel, { ...o, folder: false });
  if ('problem' in r) throw fail(r.problem.message);
  const bytes = await readCapped(r.real, o.maxBytes ?? MAX_TASK_FILE_BYTES, { noFollow: true });
  if (!Buffer.isBuffer(bytes))
    throw fail(
      bytes.kind === 'too-big'
        ? tooBig(rel, bytes.size!, o.maxBytes ?? MAX_TASK_FILE_BYTES)
        : `"${rel}" ${bytes.message}`,
    );
  return bytes;
}

/** One file of a task folder, as `submit` packs it. */
export interface TaskFolderFile {
  /** Path relative to the task folder, with "/" separators. */
  rel: string;
  size: number;
}

/**
 * Every file of the task folder `dir` (sorted, links to files inside it included), and a problem
 * for each entry that cannot be read as a file (see {@link checkTaskFile}), and for a folder of
 * more than {@link MAX_TASK_FOLDER_ENTRIES} entries or {@link MAX_TASK_FOLDER_BYTES} in all. Each
 * problem names the entry's path; its field is empty.
 */
export async function taskFolderFiles(
  dir: string,
): Promise<{ files: TaskFolderFile[]; problems: TaskProblem[] }> {
  const files: TaskFolderFile[] = [];
  const problems: TaskProblem[] = [];
  let entries = 0;
  let bytes = 0;
  const walk = async (sub: string): Promise<void> => {
    const list = await readdir(join(dir, sub), { withFileTypes: true });
    for (const e of list.sort((a, b) => a.name.localeCompare(b.name))) {
      if (++entries > MAX_TASK_FOLDER_ENTRIES) return;
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.isDirectory()) {
        await walk(rel);
        continue;
      }
      const r = await inspect(dir, rel, { folder: true });
      if ('problem' in r) problems.push({ file: join(dir, rel), field: '', message: r.problem.message });
      else if (r.folder)
        problems.push({
          file: join(dir, rel),
          field: '',
          message: `"${rel}" is a symbolic link to a folder: link files only, or move the folder into the task folder`,
        });
      else {
        files.push({ rel, size: r.size });
        bytes += r.size;
      }
    }
  };
  await walk('');
  if (entries > MAX_TASK_FOLDER_ENTRIES)
    problems.push({
      file: dir,
      field: '',
      message: `the task folder has more than ${MAX_TASK_FOLDER_ENTRIES} files and folders: pack data into fewer files`,
    });
  if (bytes > MAX_TASK_FOLDER_BYTES)
    problems.push({
      file: dir,
      field: '',
      message: `the task folder's files add up to ${bytesText(bytes)}: at most ${sizeText(MAX_TASK_FOLDER_BYTES)} in all`,
    });
  return { files, problems };
}

/** `rel` as the walk of {@link taskFolderFiles} names it (for matching a field's path). */
export function folderRel(dir: string, rel: string): string {
  return relative(resolve(dir), resolve(dir, rel)).split(sep).join('/');
}
