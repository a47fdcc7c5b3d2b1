/**
 * Upper bounds of what a task may ask for. Every time limit a task sets ends up in a Node timer,
 * and Node's `setTimeout` wraps above 2^31 − 1 ms (about 24.8 days) and then fires after 1 ms: a
 * command given 30 days would be killed at once. So each duration has a maximum well below that,
 * checked when the task loads, and the episode machine never sees one out of range. The sizes bound
 * what a task folder makes the harness read.
 */
import { z } from 'zod';

/** Longest `action_timeout_sec`, shell action `timeout_sec` and criterion `timeout_sec`: one day. */
export const MAX_ACTION_TIMEOUT_SEC = 86_400;
/** Longest `wall_clock_sec`: 30 days (the machine compares it with event times, not a timer). */
export const MAX_WALL_CLOCK_SEC = 2_592_000;
/** Longest `desktop.timeout_sec` (time for a GUI app to show its window): one hour. */
export const MAX_DESKTOP_TIMEOUT_SEC = 3_600;
/** Longest `desktop.settle_ms`: one minute. */
export const MAX_SETTLE_MS = 60_000;
/** `output_cap_bytes` range: 1 KiB to 64 MiB per stream per command. */
export const MIN_OUTPUT_CAP_BYTES = 1024;
export const MAX_OUTPUT_CAP_BYTES = 64 * 1024 * 1024;
/** Most processes (`resources.pids`) and memory (`resources.memory_mb`, 256 GiB) of a sandbox. */
export const MAX_PIDS = 65_536;
export const MAX_MEMORY_MB = 262_144;
/** Most rounds of history sent to the agent (`history_window`). */
export const MAX_HISTORY_WINDOW = 1000;
/** Most restores of a vanished sandbox (`sandbox_retries`). */
export const MAX_SANDBOX_RETRIES = 10;
/**
 * The GUI sandbox's own limits on a `wait` (seconds) and a `scroll` (wheel notches per axis), the
 * defaults of `actors/sandbox/gui.ts`: a scripted solution past them fails at run time, so it is a
 * load error instead.
 */
export const MAX_GUI_WAIT_SEC = 60;
export const MAX_SCROLL_NOTCHES = 50;

/**
 * Largest task.yaml, `defects/*.yaml` or `alternatives/*.yaml`: 128 KiB, nine times the largest
 * task.yaml today (14 KB). The `yaml` parser takes about 0.3 s for 128 KiB of its slowest input (a
 * flow list of 64 000 items) and 0.6 s for 256 KiB, so the limit keeps any file under a second.
 */
export const MAX_TASK_YAML_BYTES = 128 * 1024;
/** Most nodes a task YAML file may expand to through aliases (`&anchor` … `*anchor`). */
export const MAX_YAML_ALIAS_NODES = 10_000;
/** Largest single file of a task folder (an input, a reference image, a hidden file). */
export const MAX_TASK_FILE_BYTES = 256 * 1024 * 1024;
/** Largest task folder in all (what `submit` packs into one tar in memory). */
export const MAX_TASK_FOLDER_BYTES = 512 * 1024 * 1024;
/** Most entries (files and folders) of one task folder. */
export const MAX_TASK_FOLDER_ENTRIES = 10_000;

/** `1 day`, `30 days`, `1 hour`: how a maximum in seconds reads in a message. */
function readable(sec: number): string {
  if (sec % 86_400 === 0) return `${sec / 86_400} day${sec === 86_400 ? '' : 's'}`;
  if (sec % 3_600 === 0) return `${sec / 3_600} hour${sec === 3_600 ? '' : 's'}`;
  return `${sec} s`;
}

/** A positive duration in seconds, at most `max`, with a message naming the maximum. */
export function seconds(max: number): z.ZodNumber {
  return z
    .number()
    .positive()
    .max(max, `at most ${max} s (${readable(max)}); longer limits are not supported`);
}

/** An integer in `[min, max]` whose messages name the range and the unit. */
export function intIn(min: number, max: number, unit: string): z.ZodNumber {
  const range = `from ${min} to ${max} ${unit}`;
  return z.number().int().min(min, range).max(max, range);
}

/**
 * How a byte count reads in a message: `5.0 GiB`, `256 MiB`, `1.5 MiB`, `12 KiB`, `7 bytes`.
 * @example sizeText(268435456) // '256 MiB'
 */
export function sizeText(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  const m = bytes / 2 ** 20;
  if (m >= 1) return `${Number.isInteger(m) ? m : m.toFixed(1)} MiB`;
  const k = bytes / 1024;
  return k >= 1 ? `${Number.isInteger(k) ? k : k.toFixed(1)} KiB` : `${bytes} bytes`;
}
