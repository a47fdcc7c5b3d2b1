/**
 * The path rules of task.yaml. A path a task names is compared as written (a criterion's
 * `deliverable` must equal a deliverable's `path`) and ends up in sandbox commands, so it must be
 * normalised: `part.stl`, never `./part.stl`, `out/`, `.` or a name with a NUL in it.
 */
import { z } from 'zod';

/** C0 controls, DEL and C1 controls: they cannot be typed, printed or passed to a shell safely. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_PATH = 4096;
const MAX_NAME = 255;

function controlProblem(p: string): string | null {
  const m = CONTROL.exec(p);
  if (!m) return null;
  const code = m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  return `contains the control character U+${code} at position ${m.index}: use printable characters only`;
}

/**
 * What is wrong with `p` as a relative path inside the task folder or the workspace, or null.
 * Rule: non-empty, printable, at most 4096 characters (255 per name), no leading or trailing "/",
 * no empty, "." or ".." segments.
 */
export function relPathProblem(p: string): string | null {
  if (p.length === 0) return 'must not be empty';
  const control = controlProblem(p);
  if (control) return control;
  if (p.length > MAX_PATH) return `is ${p.length} characters long: at most ${MAX_PATH}`;
  if (p.startsWith('/'))
    return 'must be a relative path inside the task folder or workspace (no leading "/", no "..")';
  const parts = p.split('/');
  if (parts.includes('..'))
    return 'must be a relative path inside the task folder or workspace (no leading "/", no "..")';
  if (parts.every((s) => s === '.' || s === ''))
    return 'names the folder itself: name a file inside it, e.g. "part.stl"';
  if (p.endsWith('/')) return `must name a file, without a trailing "/" (write "${p.replace(/\/+$/, '')}")`;
  if (parts.some((s) => s === '.' || s === ''))
    return `must be normalised, without "." or empty segments (write "${parts.filter((s) => s !== '.' && s !== '').join('/')}")`;
  const long = parts.find((s) => s.length > MAX_NAME);
  if (long) return `has a name of ${long.length} characters: at most ${MAX_NAME}`;
  return null;
}

/** A relative path inside the task folder or the workspace (see {@link relPathProblem}). */
export const relPath = z.string().superRefine((p, ctx) => {
  const problem = relPathProblem(p);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** Top-level folders a workdir may not be, nor be under: the system's and the sandbox's own mounts. */
const SYSTEM = [
  'bin',
  'boot',
  'dev',
  'etc',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'lost+found',
  'proc',
  'run',
  'sbin',
  'snap',
  'sys',
  'tmp',
  'usr',
  'var',
];
/** Top-level folders a workdir may be under but not be (a volume there would hide their content). */
const PARENTS = ['home', 'media', 'mnt', 'opt', 'root', 'srv'];
const NAME = /^[A-Za-z0-9._-]+$/;

/**
 * What is wrong with `p` as a sandbox `workdir`, or null. Rule: an absolute, normalised path (no
 * trailing "/", no empty, "." or ".." segments) of names made of letters, digits, ".", "_" and "-",
 * at least one level deep, neither in a system folder (/bin /boot /dev /etc /lib* /proc /run /sbin
 * /snap /sys /tmp /usr /var) nor one of /home /media /mnt /opt /root /srv itself. The workdir
 * becomes the sandbox's size-limited volume: at `/` or `/usr` it would hide the image, at `/proc`
 * or `/dev` it breaks the container, and `/tmp` is already the sandbox's own tmpfs.
 */
function workdirProblem(p: string): string | null {
  const example = 'e.g. /workspace or /home/agent/work';
  const control = controlProblem(p);
  if (control) return control;
  if (!p.startsWith('/')) return `must be an absolute path (${example})`;
  if (p.length > 255) return `is ${p.length} characters long: at most 255`;
  if (p === '/') return `must be a folder of its own, not / (${example})`;
  if (p.endsWith('/')) return `must not end with "/" (write "${p.replace(/\/+$/, '') || '/'}")`;
  const parts = p.slice(1).split('/');
  if (parts.some((s) => s === '' || s === '.' || s === '..'))
    return `must be normalised, without empty, "." or ".." segments (${example})`;
  const bad = parts.find((s) => !NAME.test(s));
  if (bad !== undefined) return `"${bad}": use letters, digits, ".", "_" and "-" in folder names`;
  const top = parts[0]!;
  if (SYSTEM.includes(top))
    return `is ${parts.length === 1 ? '' : 'inside '}the system folder /${top}: use a folder of its own (${example})`;
  if (PARENTS.includes(top) && parts.length === 1)
    return `would hide everything in /${top}: use a folder inside it or of its own (${example})`;
  return null;
}

/** A sandbox workdir (see {@link workdirProblem}). */
export const workdirPath = z.string().superRefine((p, ctx) => {
  const problem = workdirProblem(p);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
