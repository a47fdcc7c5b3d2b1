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
import { FrameCache, sampleDesktop, type DesktopSample } from './gui-activity.js';
import { windowPattern, type GuiActionError, type WaitCondition } from './gui-commands.js';
import { windows } from './gui-observe.js';
import type { Sandbox } from './types.js';

/** How a settled screen is recognised; the defaults suit apps on the 1920×1080 desktop. */
export interface SettleRule {
  /** The screen must show no change, and the apps no work, for this long, ms. Default 400. */
  quietMs: number;
  /** Pixels that may differ between frames and still count as no change (a blinking text cursor). Default 400. */
  noisePixels: number;
  /** CPU the apps may use and still count as idle, as a share of one core (timers, cursor). Default 0.1. */
  idleCpu: number;
  /** Pause between two looks (screenshots or the window list), ms. Default 100. */
  pollMs: number;
}

const DEFAULT_RULE: SettleRule = { quietMs: 400, noisePixels: 400, idleCpu: 0.1, pollMs: 100 };

/** Screenshots until one differs from `before`; that sample, or `null` at the deadline. */
async function firstChange(
  sb: Sandbox,
  frames: FrameCache,
  before: DesktopSample,
  deadline: number,
  rule: SettleRule,
  signal?: AbortSignal,
): Promise<DesktopSample | null> {
  for (;;) {
    const now = await sampleDesktop(sb, signal);
    if (frames.diff(before, now, rule.noisePixels) > rule.noisePixels) return now;
    if (performance.now() >= deadline) return null;
    await sleep(rule.pollMs, undefined, { signal });
  }
}

/**
 * Samples until the screen has shown no change and the apps no work for `quietMs`. The apps are
 * working when one of their threads is runnable or they used more CPU than `idleCpu` since the
 * quiet began: then an app slow to repaint on a loaded machine is still waited for.
 */
async function untilSettled(
  sb: Sandbox,
  timeoutMs: number,
  rule: SettleRule,
  signal?: AbortSignal,
  before?: DesktopSample,
): Promise<GuiActionError | null> {
  const t0 = performance.now();
  const frames = new FrameCache();
  let ref: DesktopSample;
  if (before) {
    const changed = await firstChange(sb, frames, before, t0 + timeoutMs, rule, signal);
    if (!changed)
      return {
        code: 'TIMED_OUT',
        message: `wait until changed: the screen did not change within ${Math.round(timeoutMs / 1000)} s of the previous action`,
      };
    ref = changed;
  } else ref = await sampleDesktop(sb, signal);
  let since = performance.now();
  let changes = 0;
  let busy = 0;
  for (;;) {
    const next = await sampleDesktop(sb, signal);
    const now = performance.now();
    const moved = frames.diff(ref, next, rule.noisePixels) > rule.noisePixels;
    // Clock ticks are 10 ms: one tick of slack, then idleCpu of the time since the quiet began.
    const working =
      next.runnable.length > 0 || next.cpuTicks - ref.cpuTicks > 1 + (rule.idleCpu * (now - since)) / 10;
    if (moved || working) {
      if (moved) changes++;
      else busy++;
      ref = next;
      since = now;
    } else if (now - since >= rule.quietMs) return null;
    if (now - t0 >= timeoutMs) {
      const apps = next.runnable.length > 0 ? ` (running: ${[...new Set(next.runnable)].join(', ')})` : '';
      return {
        code: 'TIMED_OUT',
        message: `wait until ${before ? 'changed' : 'settled'}: the screen or the apps were still busy after ${Math.round(timeoutMs / 1000)} s (${changes} screen changes, ${busy} looks with the apps working${apps})`,
      };
    }
    await sleep(rule.pollMs, undefined, { signal });
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
export function screenBefore(sb: Sandbox, signal?: AbortSignal): Promise<DesktopSample> {
  return sampleDesktop(sb, signal);
}

/** Options of `waitUntil`. */
export interface WaitUntilOptions {
  signal?: AbortSignal;
  rule?: Partial<SettleRule>;
  /** For `changed`: the screen before the previous action (`screenBefore`). Without it, `changed` is `settled`. */
  before?: DesktopSample;
}

/**
 * Waits at most `timeoutMs` for `cond`: `null` when it held, a `TIMED_OUT` (or `BAD_ARGUMENT`)
 * error when not. `settled`: for `quietMs`, consecutive screenshots differ by at most `noisePixels`
 * and the apps do no work (no runnable thread, CPU under `idleCpu`).
 * `changed`: first a screenshot that differs from `before`, then settled. `{ window }`: the focused
 * window's title matches the regular expression. Throws what `sampleDesktop` and `windows` throw (the
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
