/**
 * GUI actions as xdotool command lines, and xdotool's output read back as a verdict. Pure: the
 * driver in `gui.ts` runs what this plans. Errors here are the agent's (a click off the screen, a
 * key that does not exist) and are data, never thrown.
 */
import type { CommandResult } from './result.js';
import type { Action } from '../../tasks/index.js';
import { KeyNameError, toXdotoolKeys } from './gui-keys.js';

/** The computer-use actions of a GUI task: every `Action` but `shell`. */
export type GuiAction = Exclude<Action, { type: 'shell' } | { type: 'handoff' }>;

/** Screen size in pixels; coordinates run from 0 to width-1 and height-1. */
export interface ScreenSize {
  width: number;
  height: number;
}

/**
 * Why an action failed:
 * - `OUT_OF_SCREEN`: a coordinate is not on the screen (or not a finite number).
 * - `BAD_KEY`: a `key` action names no key.
 * - `BAD_ARGUMENT`: a `wait` or `scroll` past its limit.
 * - `XDOTOOL_FAILED`: xdotool exited non-zero.
 * - `TIMED_OUT`: xdotool did not finish in time (killed).
 */
export type GuiActionErrorCode =
  'OUT_OF_SCREEN' | 'BAD_KEY' | 'BAD_ARGUMENT' | 'XDOTOOL_FAILED' | 'TIMED_OUT';

/** A failed action, as data for the event log and the agent. */
export interface GuiActionError {
  code: GuiActionErrorCode;
  /** One line the agent can act on, e.g. `click at (2500, 10) is outside the 1920×1080 screen …`. */
  message: string;
}

/**
 * What a conditional `wait` waits for: `settled`, the screen stops changing; `changed`, the screen
 * differs from how it was before the previous action of the batch, then settles (so an app slow
 * to react is waited for, not mistaken for one that is done); `{ window }`, a window whose title
 * matches has the focus. Run by `waitUntil` (`gui-wait.ts`).
 */
export type WaitCondition = 'settled' | 'changed' | { window: string };

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

/** What to do for one action: a command for the sandbox's shell, a pause on the host, or a wait on a condition (`gui-wait.ts`). */
export type GuiStep =
  | { kind: 'exec'; command: string; timeoutMs: number }
  | { kind: 'wait'; ms: number }
  | { kind: 'until'; condition: WaitCondition; ms: number };

/** Limits and pacing of the actions; see `runGuiActions` for the defaults. */
export interface GuiLimits {
  screen: ScreenSize;
  /** Delay between typed characters (xdotool `type --delay`), ms. */
  typeDelayMs: number;
  /** Longest `wait` accepted, seconds. */
  maxWaitSeconds: number;
  /** Most wheel notches one `scroll` may turn on each axis. */
  maxScrollNotches: number;
  /** Intermediate pointer positions of a `drag` (apps need motion events to see a drag). */
  dragSteps: number;
}

/** xdotool calls that touch only the pointer or keyboard finish in milliseconds. */
const QUICK_TIMEOUT_MS = 10_000;

/** Quotes `s` as one bash word (single quotes); NULs, which bash cannot hold, are dropped. */
export function shQuote(s: string): string {
  return `'${s.replace(/\0/g, '').replace(/'/g, `'\\''`)}'`;
}

type Point = [number, number];

/** The rounded point, or an `OUT_OF_SCREEN` error naming the action and the screen's bounds. */
function onScreen(what: string, x: number, y: number, screen: ScreenSize): Point | GuiActionError {
  const px = Math.round(x);
  const py = Math.round(y);
  const inside =
    Number.isFinite(x) && Number.isFinite(y) && px >= 0 && py >= 0 && px < screen.width && py < screen.height;
  if (inside) return [px, py];
  return {
    code: 'OUT_OF_SCREEN',
    message: `${what} at (${x}, ${y}) is outside the ${screen.width}×${screen.height} screen (x 0–${screen.width - 1}, y 0–${screen.height - 1})`,
  };
}

const isError = (v: unknown): v is GuiActionError => typeof v === 'object' && v !== null && 'code' in v;
const BUTTON = { left: 1, middle: 2, right: 3 } as const;

function exec(args: string, timeoutMs = QUICK_TIMEOUT_MS): GuiStep {
  return { kind: 'exec', command: `xdotool ${args}`, timeoutMs };
}

function dragArgs(from: Point, to: Point, steps: number): string {
  const moves: string[] = [];
  for (let i = 1; i <= steps; i++) {
    const x = Math.round(from[0] + ((to[0] - from[0]) * i) / steps);
    const y = Math.round(from[1] + ((to[1] - from[1]) * i) / steps);
    moves.push(`mousemove ${x} ${y} sleep 0.02`);
  }
  return `mousemove ${from[0]} ${from[1]} mousedown 1 sleep 0.05 ${moves.join(' ')} sleep 0.05 mouseup 1`;
}

function scrollArgs(at: Point, dx: number, dy: number): string {
  // X wheel buttons: 4 up, 5 down, 6 left, 7 right. Positive dy scrolls down, positive dx right.
  const turns = (n: number, neg: number, pos: number) =>
    n === 0 ? '' : ` click --repeat ${Math.abs(n)} --delay 20 ${n > 0 ? pos : neg}`;
  return `mousemove ${at[0]} ${at[1]}${turns(dy, 4, 5)}${turns(dx, 6, 7)}`;
}

/**
 * Plans one action: the xdotool command (or pause) that performs it, or why it cannot run.
 * `scroll` dx/dy count wheel notches (rounded; positive = right/down).
 *
 * @example planGuiAction({ type: 'click', x: 10, y: 20, button: 'right' }, limits)
 * // { kind: 'exec', command: 'xdotool mousemove 10 20 mousedown 3 mouseup 3', timeoutMs: 10000 }
 */
export function planGuiAction(a: GuiAction, l: GuiLimits): GuiStep | GuiActionError {
  switch (a.type) {
    case 'click':
    case 'double_click':
    case 'move': {
      const p = onScreen(a.type, a.x, a.y, l.screen);
      if (isError(p)) return p;
      const at = `mousemove ${p[0]} ${p[1]}`;
      if (a.type === 'move') return exec(at);
      // mousedown/mouseup, not `click`: xdotool sleeps 100 ms after every `click`.
      const press = (b: number) => `mousedown ${b} mouseup ${b}`;
      if (a.type === 'double_click') return exec(`${at} ${press(1)} sleep 0.05 ${press(1)}`);
      return exec(`${at} ${press(BUTTON[a.button ?? 'left'])}`);
    }
    case 'drag': {
      const from = onScreen('drag start', a.from[0], a.from[1], l.screen);
      if (isError(from)) return from;
      const to = onScreen('drag end', a.to[0], a.to[1], l.screen);
      if (isError(to)) return to;
      return exec(dragArgs(from, to, Math.max(1, l.dragSteps)));
    }
    case 'scroll': {
      const p = onScreen('scroll', a.x, a.y, l.screen);
      if (isError(p)) return p;
      const dx = Math.round(a.dx);
      const dy = Math.round(a.dy);
      if (
        !Number.isFinite(dx) ||
        !Number.isFinite(dy) ||
        Math.max(Math.abs(dx), Math.abs(dy)) > l.maxScrollNotches
      )
        return {
          code: 'BAD_ARGUMENT',
          message: `scroll by (${a.dx}, ${a.dy}) notches: at most ${l.maxScrollNotches} notches per axis`,
        };
      return exec(scrollArgs(p, dx, dy), QUICK_TIMEOUT_MS + 40 * (Math.abs(dx) + Math.abs(dy)));
    }
    case 'key': {
      let chords: string[];
      try {
        chords = toXdotoolKeys(a.keys);
      } catch (err) {
        if (err instanceof KeyNameError)
          return { code: 'BAD_KEY', message: `key ${JSON.stringify(a.keys)}: ${err.message}` };
        throw err;
      }
      return exec(`key -- ${chords.map(shQuote).join(' ')}`);
    }
    case 'type': {
      if (a.text.length === 0) return { kind: 'wait', ms: 0 };
      const budget = QUICK_TIMEOUT_MS + [...a.text].length * (l.typeDelayMs + 5) * 2;
      return exec(`type --delay ${l.typeDelayMs} -- ${shQuote(a.text)}`, budget);
    }
    case 'wait': {
      if (!(a.seconds >= 0 && a.seconds <= l.maxWaitSeconds))
        return {
          code: 'BAD_ARGUMENT',
          message: `wait of ${a.seconds} s: from 0 to ${l.maxWaitSeconds} s per action`,
        };
      const ms = Math.round(a.seconds * 1000);
      if (a.until === undefined) return { kind: 'wait', ms };
      if (typeof a.until === 'object') {
        const bad = windowPattern(a.until.window);
        if (!(bad instanceof RegExp)) return bad;
      }
      return { kind: 'until', condition: a.until, ms };
    }
    default:
      // Only reachable from untyped callers: the schema admits no other action.
      return {
        code: 'BAD_ARGUMENT',
        message: `unknown GUI action ${JSON.stringify((a as { type?: unknown }).type)}`,
      };
  }
}

/** True when xdotool's stderr says it could not reach the X server (an infrastructure fault). */
export function displayUnreachable(r: CommandResult): boolean {
  return /can't open display|cannot open display|Can't open X display/i.test(r.stderr);
}

/**
 * Reads one xdotool run: `null` when it worked, else the failure. xdotool exits 0 for an unknown
 * key name (it prints "No such key name" and skips it), so stderr is read as well. Its
 * `XGetInputFocus` warnings are harmless and ignored.
 */
export function xdotoolFailure(r: CommandResult): GuiActionError | null {
  const unknown = /No such key name '([^']*)'/.exec(r.stderr);
  if (unknown)
    return {
      code: 'BAD_KEY',
      message: `no key is named ${JSON.stringify(unknown[1])} (X keysym names: Return, Escape, ctrl, F5, …)`,
    };
  if (r.timedOut)
    return { code: 'TIMED_OUT', message: `xdotool did not finish in ${r.durationMs} ms and was stopped` };
  if (r.exitCode !== 0) {
    const why = r.stderr.trim().split('\n').slice(-3).join(' / ') || `exit code ${r.exitCode ?? 'none'}`;
    return { code: 'XDOTOOL_FAILED', message: `xdotool failed: ${why}` };
  }
  return null;
}
