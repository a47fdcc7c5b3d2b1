/**
 * One look at a desktop for conditional waits: the screen, and whether the apps are working. The
 * apps' CPU time and their runnable threads come from /proc inside the container, so an app that
 * has work queued but no CPU yet (a loaded machine) counts as busy even while its window shows no
 * change.
 *
 * @example
 * const s = await sampleDesktop(sb); // { png: <Buffer 89 50 …>, hash: '3f…', cpuTicks: 286, runnable: [] }
 */
import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';
import { guiUnavailable } from './gui-observe.js';
import { SandboxError } from './errors.js';
import type { Sandbox } from './types.js';

/** Decoded screen pixels. */
export interface Rgba {
  width: number;
  height: number;
  data: Buffer;
}

/** The screen and the apps' activity at one moment. */
export interface DesktopSample {
  /** The screenshot, as scrot encoded it (the same screen gives the same bytes). */
  png: Buffer;
  /** SHA-1 of `png`: equal hashes, equal screens, with no decoding. */
  hash: string;
  /** User + system CPU time of the apps' threads so far, in clock ticks (1/100 s). */
  cpuTicks: number;
  /** Names of the apps' threads that were running, runnable or waiting on disk (page faults, file reads). */
  runnable: string[];
}

const SHOT = '/tmp/.engiloop-wait.png';

/**
 * Processes that are the desktop or the harness, not an app: the shell and tools that run our own
 * commands, the window manager and the X server (whose work shows on the screen).
 */
const NOT_APPS =
  'bash|sh|awk|scrot|xdotool|base64|timeout|sleep|cat|openbox|wmctrl|xdpyinfo|docker-init|tini|Xvfb';

// cat skips threads that exit while it reads (mawk would stop at the first).
// /proc/<pid>/task/<tid>/stat: "tid (comm) state ppid … utime stime …"; comm may hold spaces and
// parentheses, so the fields are read after the last ")": state is the 1st, utime the 12th, stime
// the 13th. A thread in state D waits on the disk (say, the first page faults of a module the app
// loads for a new command): busy too.
const AWK = `cat /proc/[0-9]*/task/[0-9]*/stat 2>/dev/null | awk '{ j = 0; for (k = length($0); k > 0; k--) if (substr($0, k, 1) == ")") { j = k; break }
  i = index($0, "("); comm = substr($0, i + 1, j - i - 1); n = split(substr($0, j + 2), f, " ")
  if (comm ~ /^(${NOT_APPS})$/ || n < 13) next
  t += f[12] + f[13]; if (f[1] == "R" || f[1] == "D") r = r " " comm }
  END { print "@@ACTIVITY@@", t + 0, r }'`;

/** Reads the `@@ACTIVITY@@ <ticks> [names…]` line. */
function parseActivity(text: string): { cpuTicks: number; runnable: string[] } | null {
  const m = /^@@ACTIVITY@@ (\d+)(.*)$/m.exec(text);
  if (!m) return null;
  return { cpuTicks: Number(m[1]), runnable: m[2]!.trim().split(/\s+/).filter(Boolean) };
}

/**
 * Takes a screenshot and reads the apps' activity right after it, in one command. Throws
 * `GUI_UNAVAILABLE` when the display does not answer and `SANDBOX_IO` when the output is not a PNG.
 */
export async function sampleDesktop(sb: Sandbox, signal?: AbortSignal): Promise<DesktopSample> {
  const r = await sb.exec(`scrot -o ${SHOT} || exit 3; ${AWK} >&2; base64 -w0 ${SHOT}`, {
    timeoutMs: 20_000,
    outputCapBytes: 32 << 20,
    signal,
  });
  if (r.exitCode !== 0) throw guiUnavailable('taking a screenshot', r);
  const activity = parseActivity(r.stderr);
  if (!activity) throw new SandboxError('SANDBOX_IO', `no activity line: ${r.stderr.slice(-200)}`);
  const png = Buffer.from(r.stdout, 'base64');
  return { png, hash: createHash('sha1').update(png).digest('hex'), ...activity };
}

/**
 * Decodes samples' screenshots, each distinct screen once: a wait compares many looks at the same
 * few screens (a static one, the same with the text cursor on and off), and decoding a 1920×1080
 * PNG costs ≈50 ms of the host's CPU.
 */
export class FrameCache {
  private readonly frames = new Map<string, Rgba>();

  /** Pixels that differ between two samples' screens (0 for equal bytes), stopping past `stopAt`. */
  diff(a: DesktopSample, b: DesktopSample, stopAt: number): number {
    if (a.hash === b.hash) return 0;
    return changedPixels(this.decode(a), this.decode(b), stopAt);
  }

  private decode(s: DesktopSample): Rgba {
    let f = this.frames.get(s.hash);
    if (f) return f;
    try {
      f = PNG.sync.read(s.png);
    } catch (err) {
      throw new SandboxError('SANDBOX_IO', `screenshot is not a PNG: ${(err as Error).message}`);
    }
    if (this.frames.size >= 4) this.frames.delete(this.frames.keys().next().value!);
    this.frames.set(s.hash, f);
    return f;
  }
}

/** Counts pixels whose RGB differs, stopping once `stopAt` is passed. */
function changedPixels(a: Rgba, b: Rgba, stopAt: number): number {
  if (a.width !== b.width || a.height !== b.height) return Number.POSITIVE_INFINITY;
  const x = a.data;
  const y = b.data;
  let n = 0;
  for (let i = 0; i < x.length; i += 4) {
    if (x[i] !== y[i] || x[i + 1] !== y[i + 1] || x[i + 2] !== y[i + 2]) {
      n++;
      if (n > stopAt) return n;
    }
  }
  return n;
}
