/**
 * The GUI driver: operates the virtual desktop of an `engiloop/desktop` sandbox through the
 * sandbox's persistent shell. `startDesktop` first (idempotent), then per agent turn
 * `guiTurn` (or `runGuiActions` + `screenshot` [+ `windows`]).
 *
 * @example
 * await using sb = await provider.create({ name: 'main', image: 'engiloop/desktop:latest',
 *   workdir: '/workspace', cpus: 2, memoryMb: 3072, pids: 1024 });
 * await startDesktop(sb);
 * await launchApp(sb, 'librecad', { title: /LibreCAD/ });
 * const turn = await guiTurn(sb, [{ type: 'click', x: 40, y: 60 }, { type: 'type', text: 'line' }]);
 * // turn.results[i].ok, turn.stoppedAt, turn.screenshot.png
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxError } from './errors.js';
import {
  displayUnreachable,
  planGuiAction,
  shQuote,
  xdotoolFailure,
  type GuiAction,
  type GuiActionError,
  type GuiLimits,
  type ScreenSize,
} from './gui-commands.js';
import {
  guiUnavailable,
  screenshot,
  waitForWindow,
  windows,
  type GuiWindow,
  type Screenshot,
  type WindowList,
} from './gui-observe.js';
import type { DesktopSample } from './gui-activity.js';
import { screenBefore, waitUntil } from './gui-wait.js';
import type { Sandbox } from './types.js';

/** The screen of `engiloop/desktop` (Xvfb `-screen 0 1920x1080x24`). */
export const DESKTOP_SCREEN: ScreenSize = { width: 1920, height: 1080 };

const CAP = 64 << 10;

/**
 * Starts the desktop (Xvfb + openbox) unless it runs, and returns the screen size. Takes ≈0.3 s
 * the first time, a few ms after. Throws `GUI_UNAVAILABLE` when the image has no desktop or the
 * display does not come up.
 */
export async function startDesktop(
  sb: Sandbox,
  opts: { signal?: AbortSignal } = {},
): Promise<ScreenSize & { durationMs: number }> {
  // The desktop, and every app started on it, outlive the command that started them.
  sb.setServices(null);
  const r = await sb.exec('engiloop-desktop-start && xdotool getdisplaygeometry', {
    timeoutMs: 30_000,
    outputCapBytes: CAP,
    signal: opts.signal,
  });
  if (r.exitCode === 127)
    throw new SandboxError(
      'GUI_UNAVAILABLE',
      'this image has no desktop (engiloop-desktop-start not found): use engiloop/desktop:latest',
    );
  const m = /^(\d+) (\d+)$/m.exec(r.stdout);
  if (r.exitCode !== 0 || !m) throw guiUnavailable('starting the desktop', r);
  return { width: Number(m[1]), height: Number(m[2]), durationMs: r.durationMs };
}

/**
 * Starts an app on the desktop, detached (its own session, so a shell recovery does not kill it;
 * output to /tmp/.engiloop-desktop/apps.log). With `title`, waits for its window (default 60 s)
 * and returns it; throws `GUI_UNAVAILABLE` if it never comes.
 */
export async function launchApp(
  sb: Sandbox,
  command: string,
  opts: { title?: RegExp; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<GuiWindow | null> {
  const log = '/tmp/.engiloop-desktop/apps.log';
  const r = await sb.exec(
    `mkdir -p /tmp/.engiloop-desktop; setsid bash -c ${shQuote(command)} </dev/null >>${log} 2>&1 &`,
    {
      timeoutMs: 10_000,
      outputCapBytes: CAP,
      signal: opts.signal,
    },
  );
  if (r.exitCode !== 0) throw guiUnavailable(`launching ${command}`, r);
  if (!opts.title) return null;
  return waitForWindow(sb, opts.title, { timeoutMs: opts.timeoutMs, signal: opts.signal });
}

/** One action's outcome. */
export interface GuiActionResult {
  ok: boolean;
  /** Why it failed (the agent's doing, not the infrastructure's). */
  error?: GuiActionError;
  durationMs: number;
}

/** The outcome of a batch: one result per action attempted. */
export interface GuiActionsOutcome {
  /** Results in order; actions after a failure are not attempted and have no result. */
  results: GuiActionResult[];
  /** Index of the action that failed, when one did. */
  stoppedAt?: number;
}

/** Options of `runGuiActions`; every limit has a default. */
export interface RunGuiActionsOptions extends Partial<GuiLimits> {
  signal?: AbortSignal;
}

const DEFAULT_LIMITS: GuiLimits = {
  screen: DESKTOP_SCREEN,
  typeDelayMs: 12,
  maxWaitSeconds: 60,
  maxScrollNotches: 50,
  dragSteps: 8,
};

/**
 * Runs `actions` in order with xdotool, stopping at the first that fails: a coordinate off the
 * screen, an unknown key, a `wait`/`scroll` past its limit, or xdotool failing. Such failures are
 * results, not errors. Throws `GUI_UNAVAILABLE` when the display does not answer,
 * `CONTAINER_GONE` when the container died, and the signal's reason when aborted.
 * Defaults: screen 1920×1080, typeDelayMs 12, maxWaitSeconds 60, maxScrollNotches 50, dragSteps 8.
 */
export async function runGuiActions(
  sb: Sandbox,
  actions: readonly GuiAction[],
  opts: RunGuiActionsOptions = {},
): Promise<GuiActionsOutcome> {
  const limits: GuiLimits = {
    screen: opts.screen ?? DEFAULT_LIMITS.screen,
    typeDelayMs: opts.typeDelayMs ?? DEFAULT_LIMITS.typeDelayMs,
    maxWaitSeconds: opts.maxWaitSeconds ?? DEFAULT_LIMITS.maxWaitSeconds,
    maxScrollNotches: opts.maxScrollNotches ?? DEFAULT_LIMITS.maxScrollNotches,
    dragSteps: opts.dragSteps ?? DEFAULT_LIMITS.dragSteps,
  };
  const results: GuiActionResult[] = [];
  let before: DesktopSample | undefined;
  for (const [i, action] of actions.entries()) {
    opts.signal?.throwIfAborted();
    const t0 = performance.now();
    const step = planGuiAction(action, limits);
    let error: GuiActionError | null = null;
    // A `changed` wait compares with the screen before the action it follows.
    const next = actions[i + 1];
    const last = before;
    before =
      next?.type === 'wait' && next.until === 'changed' ? await screenBefore(sb, opts.signal) : undefined;
    if ('code' in step) error = step;
    else if (step.kind === 'wait') await sleep(step.ms, undefined, { signal: opts.signal });
    else if (step.kind === 'until')
      error = await waitUntil(sb, step.condition, step.ms, { signal: opts.signal, before: last });
    else {
      const r = await sb.exec(step.command, {
        timeoutMs: step.timeoutMs,
        outputCapBytes: CAP,
        signal: opts.signal,
      });
      if (displayUnreachable(r)) throw guiUnavailable(`${action.type} (${step.command})`, r);
      error = xdotoolFailure(r);
    }
    const durationMs = Math.round(performance.now() - t0);
    results.push(error ? { ok: false, error, durationMs } : { ok: true, durationMs });
    if (error) return { results, stoppedAt: i };
  }
  return { results };
}

/** Options of `guiTurn`. */
export interface GuiTurnOptions extends RunGuiActionsOptions {
  /** Pause between the last action and the screenshot, so the apps can repaint. Default 200 ms. */
  settleMs?: number;
  /** Also list the windows and the focused one. Default false. */
  withWindows?: boolean;
}

/** One turn's observation: the action results, one fresh screenshot, optionally the windows. */
export interface GuiTurn extends GuiActionsOutcome {
  screenshot: Screenshot;
  windows?: WindowList;
}

/**
 * One agent turn: `runGuiActions`, a settle pause, then one fresh screenshot (always, even when an
 * action failed, so the agent sees where it stands) and, with `withWindows`, the window list.
 * Throws what `runGuiActions` and `screenshot` throw.
 */
export async function guiTurn(
  sb: Sandbox,
  actions: readonly GuiAction[],
  opts: GuiTurnOptions = {},
): Promise<GuiTurn> {
  const outcome = await runGuiActions(sb, actions, opts);
  const settle = opts.settleMs ?? 200;
  if (settle > 0) await sleep(settle, undefined, { signal: opts.signal });
  const shot = await screenshot(sb, { signal: opts.signal });
  const turn: GuiTurn = { ...outcome, screenshot: shot };
  if (opts.withWindows) turn.windows = await windows(sb, { signal: opts.signal });
  return turn;
}
