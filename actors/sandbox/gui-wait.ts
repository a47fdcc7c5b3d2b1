/**
 * Conditional waits: a `wait` action with `until` ends as soon as the screen has settled or a
 * window with a matching title has the focus, instead of after a fixed time. Scripted solutions use
 * them so that they hold when the machine is loaded and the app slow; `seconds` is then the most
 * the action waits, and it fails with `TIMED_OUT` when the condition never holds.
 *
 * @example
 * await waitUntil(sb, 'settled', 10_000);             // null once the screen stops changing
 * await waitUntil(sb, { window: '^Save' }, 10_000);   // null once "Save …" has the focus
 * await waitUntil(sb, 'changed', 10_000, { before });  // `before` from screenBefore(), taken before the action
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { PNG } from 'pngjs';
import type { GuiActionError } from './gui-commands.js';
import { screenshot, windows } from './gui-observe.js';
import type { Sandbox } from './types.js';

/**
 * What a conditional `wait` waits for: `settled`, the screen stops changing; `changed`, the screen
 * differs from how it was before the previous action of the batch, then settles (so an app slow
 * to react is waited for, not mistaken for one that is done); `{ window }`, a window whose title
 * matches has the focus.
 */
export type WaitCondition = 'settled' | 'changed' | { window: string };

/** How a settled screen is recognised; the defaults suit apps on the 1920×1080 desktop. */
export interface SettleRule {
  /** The screen must show no change for this long, ms. Default 400. */
  quietMs: number;
  /** Pixels that may differ between frames and still count as no change (a blinking text cursor). Default 400. */
  noisePixels: number;
  /** Pause between two looks at the window list, ms. Default 100. */
  pollMs: number;
}

const DEFAULT_RULE: SettleRule = { quietMs: 400, noisePixels: 400, pollMs: 100 };

/** Decoded screen pixels. */
export interface Rgba {
  width: number;
  height: number;
  data: Buffer;
}

const decodePng = (png: Buffer): Rgba => PNG.sync.read(png);

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

/** The regular expression of a window condition, or why it is not one. */
export function windowPattern(source: string): RegExp | GuiActionError {
  try {
    return new RegExp(source);
  } catch (err) {
    return {
      code: 'BAD_ARGUMENT',
      message: `wait until window ${JSON.stringify(source)}: not a regular expression (${(err as Error).message})`,
    };
  }
}

const frame = async (sb: Sandbox, signal?: AbortSignal): Promise<Rgba> =>
  decodePng((await screenshot(sb, { signal })).png);

/** Screenshots until one differs from `before`; that frame, or `null` at the deadline. */
async function firstChange(
  sb: Sandbox,
  before: Rgba,
  deadline: number,
  rule: SettleRule,
  signal?: AbortSignal,
): Promise<Rgba | null> {
  for (;;) {
    const now = await frame(sb, signal);
    if (changedPixels(before, now, rule.noisePixels) > rule.noisePixels) return now;
    if (performance.now() >= deadline) return null;
  }
}

async function untilSettled(
  sb: Sandbox,
  timeoutMs: number,
  rule: SettleRule,
  signal?: AbortSignal,
  before?: Rgba,
): Promise<GuiActionError | null> {
  const t0 = performance.now();
  let ref: Rgba;
  if (before) {
    const changed = await firstChange(sb, before, t0 + timeoutMs, rule, signal);
    if (!changed)
      return {
        code: 'TIMED_OUT',
        message: `wait until changed: the screen did not change within ${Math.round(timeoutMs / 1000)} s of the previous action`,
      };
    ref = changed;
  } else ref = await frame(sb, signal);
  let since = performance.now();
  let changes = 0;
  for (;;) {
    const next = await frame(sb, signal);
    const now = performance.now();
    if (changedPixels(ref, next, rule.noisePixels) > rule.noisePixels) {
      ref = next;
      since = now;
      changes++;
    } else if (now - since >= rule.quietMs) return null;
    if (now - t0 >= timeoutMs)
      return {
        code: 'TIMED_OUT',
        message: `wait until ${before ? 'changed' : 'settled'}: the screen was still changing after ${Math.round(timeoutMs / 1000)} s (${changes} changes seen)`,
      };
  }
}

async function untilWindow(
  sb: Sandbox,
  pattern: RegExp,
  timeoutMs: number,
  rule: SettleRule,
  signal?: AbortSignal,
): Promise<GuiActionError | null> {
  const t0 = performance.now();
  for (;;) {
    const { focused } = await windows(sb, { signal });
    if (focused && pattern.test(focused.title)) return null;
    if (performance.now() - t0 >= timeoutMs)
      return {
        code: 'TIMED_OUT',
        message: `wait until window ${pattern}: after ${Math.round(timeoutMs / 1000)} s the focused window is ${focused ? JSON.stringify(focused.title) : 'none'}`,
      };
    await sleep(rule.pollMs, undefined, { signal });
  }
}

/** The screen as a `changed` wait compares it: taken before the action that precedes the wait. */
export async function screenBefore(sb: Sandbox, signal?: AbortSignal): Promise<Rgba> {
  return frame(sb, signal);
}

/** Options of `waitUntil`. */
export interface WaitUntilOptions {
  signal?: AbortSignal;
  rule?: Partial<SettleRule>;
  /** For `changed`: the screen before the previous action (`screenBefore`). Without it, `changed` is `settled`. */
  before?: Rgba;
}

/**
 * Waits at most `timeoutMs` for `cond`: `null` when it held, a `TIMED_OUT` (or `BAD_ARGUMENT`)
 * error when not. `settled`: consecutive screenshots differ by at most `noisePixels` for `quietMs`.
 * `changed`: first a screenshot that differs from `before`, then settled. `{ window }`: the focused
 * window's title matches the regular expression. Throws what `screenshot` and `windows` throw (the
 * desktop gone is not the agent's fault).
 */
export async function waitUntil(
  sb: Sandbox,
  cond: WaitCondition,
  timeoutMs: number,
  opts: WaitUntilOptions = {},
): Promise<GuiActionError | null> {
  const rule = { ...DEFAULT_RULE, ...opts.rule };
  if (cond === 'settled') return untilSettled(sb, timeoutMs, rule, opts.signal);
  if (cond === 'changed') return untilSettled(sb, timeoutMs, rule, opts.signal, opts.before);
  const pattern = windowPattern(cond.window);
  if (!(pattern instanceof RegExp)) return pattern;
  return untilWindow(sb, pattern, timeoutMs, rule, opts.signal);
}
