/**
 * What a GUI sandbox shows: a screenshot of the whole virtual screen, and the window list with the
 * focused window. Both go through the sandbox's persistent shell (one command each).
 */
import { performance } from 'node:perf_hooks';
import type { CommandResult } from './result.js';
import { pngSize } from '../../verifiers/index.js';
import { SandboxError } from './errors.js';
import type { Sandbox } from './types.js';

/** One screenshot of the whole screen. */
export interface Screenshot {
  png: Buffer;
  width: number;
  height: number;
  /** Capture + PNG encoding inside the container (scrot), ms. */
  encodeMs: number;
  /** The whole call as the host saw it (capture, encoding, base64 transfer, decoding), ms. */
  durationMs: number;
}

/** A top-level window as the window manager lists it. */
export interface WindowInfo {
  /** X window id, `0x` and 8 hex digits as wmctrl prints it, e.g. `0x00400011`. */
  id: string;
  title: string;
}

/** A managed window with its geometry (screen pixels, as wmctrl reports it). */
export interface GuiWindow extends WindowInfo {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The window list and the focused window (`null` when nothing has focus). */
export interface WindowList {
  list: GuiWindow[];
  focused: WindowInfo | null;
}

/** Options of the observation calls. */
export interface ObserveOptions {
  signal?: AbortSignal;
}

/** Temp file of the last screenshot (tmpfs; the workspace is left alone). */
const SHOT = '/tmp/.engiloop-shot.png';
/** A 1920×1080 PNG is ~0.1–3 MB; an uncompressible one 8 MB (11 MB in base64). */
const SHOT_CAP_BYTES = 32 << 20;

/** The `GUI_UNAVAILABLE` error for a desktop command that failed for a reason that is not the agent's. */
export function guiUnavailable(doing: string, r: CommandResult): SandboxError {
  const why = r.timedOut ? 'timed out' : `exit ${r.exitCode ?? 'none'}: ${r.stderr.trim().slice(-400)}`;
  return new SandboxError(
    'GUI_UNAVAILABLE',
    `${doing} failed (${why}); is the desktop running (startDesktop)?`,
  );
}

/**
 * Takes a screenshot of the whole screen (scrot, default compression) and fetches it as base64 on
 * stdout, which was faster than `getFile` (≈70 ms against ≈105 ms for a 100 KB PNG) and keeps the
 * workspace clean. Throws `GUI_UNAVAILABLE` when the display does not answer, `SANDBOX_IO` when
 * the output is not a PNG, `CONTAINER_GONE` when the container died.
 */
export async function screenshot(sb: Sandbox, opts: ObserveOptions = {}): Promise<Screenshot> {
  const t0 = performance.now();
  const cmd = `t0=$EPOCHREALTIME; scrot -o ${SHOT} || exit 3; t1=$EPOCHREALTIME; echo "$t0 $t1" >&2; base64 -w0 ${SHOT}`;
  const r = await sb.exec(cmd, { timeoutMs: 20_000, outputCapBytes: SHOT_CAP_BYTES, signal: opts.signal });
  if (r.exitCode !== 0) throw guiUnavailable('taking a screenshot', r);
  if (r.truncated)
    throw new SandboxError('SANDBOX_IO', `screenshot larger than ${SHOT_CAP_BYTES} bytes of base64`);
  const png = Buffer.from(r.stdout, 'base64');
  const size = pngSize(png);
  if (!size) throw new SandboxError('SANDBOX_IO', `screenshot is not a PNG (${png.length} bytes)`);
  const [s0, s1] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  const encodeMs = s0 !== undefined && s1 !== undefined ? Math.round((s1 - s0) * 1000) : Number.NaN;
  return {
    png,
    width: size.width,
    height: size.height,
    encodeMs,
    durationMs: Math.round(performance.now() - t0),
  };
}

const WMCTRL_LINE = /^(0x[0-9a-fA-F]+)\s+-?\d+\s+(-?\d+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s+\S+ ?(.*)$/;

/** Parses `wmctrl -lG` lines, then a marker, then `xdotool getactivewindow getwindowname`. */
function parseWindows(stdout: string): WindowList {
  const [listPart = '', focusPart = ''] = stdout.split('--focus--\n');
  const list: GuiWindow[] = [];
  for (const line of listPart.split('\n')) {
    const m = WMCTRL_LINE.exec(line);
    if (!m) continue;
    const [, id, x, y, w, h, title] = m;
    list.push({ id: id!, title: title!, x: Number(x), y: Number(y), width: Number(w), height: Number(h) });
  }
  const [dec, ...name] = focusPart.split('\n');
  const focusedId = Number.parseInt(dec ?? '', 10);
  let focused: WindowInfo | null = null;
  if (Number.isInteger(focusedId) && focusedId > 0) {
    const known = list.find((w) => Number.parseInt(w.id, 16) === focusedId);
    focused = known
      ? { id: known.id, title: known.title }
      : { id: `0x${focusedId.toString(16).padStart(8, '0')}`, title: name.join('\n').trimEnd() };
  }
  return { list, focused };
}

/**
 * Lists the top-level windows (wmctrl) and the focused one (`_NET_ACTIVE_WINDOW`). Throws
 * `GUI_UNAVAILABLE` when the display or the window manager does not answer.
 */
export async function windows(sb: Sandbox, opts: ObserveOptions = {}): Promise<WindowList> {
  // wmctrl fails on an empty _NET_CLIENT_LIST ("Cannot get client list properties"): no windows.
  const cmd = `xdpyinfo >/dev/null || exit 3; wmctrl -lG; echo --focus--; w=$(xdotool getactivewindow 2>/dev/null) && echo "$w" && xdotool getwindowname "$w" 2>/dev/null; exit 0`;
  const r = await sb.exec(cmd, { timeoutMs: 10_000, outputCapBytes: 1 << 20, signal: opts.signal });
  if (r.exitCode !== 0) throw guiUnavailable('listing windows', r);
  return parseWindows(r.stdout);
}

/**
 * Polls `windows()` until a window whose title matches `title` appears; returns it. Throws
 * `GUI_UNAVAILABLE` after `timeoutMs` (default 60 s), naming the windows that were there.
 */
export async function waitForWindow(
  sb: Sandbox,
  title: RegExp,
  opts: ObserveOptions & { timeoutMs?: number; intervalMs?: number } = {},
): Promise<GuiWindow> {
  const deadline = performance.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const { list } = await windows(sb, opts);
    const w = list.find((x) => title.test(x.title));
    if (w) return w;
    if (performance.now() >= deadline)
      throw new SandboxError(
        'GUI_UNAVAILABLE',
        `no window titled ${title} after ${opts.timeoutMs ?? 60_000} ms; windows: ${JSON.stringify(list.map((x) => x.title))}`,
      );
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
    opts.signal?.throwIfAborted();
  }
}
