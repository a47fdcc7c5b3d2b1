/**
 * A sandbox's command result as events record it (streams/events.ts `CommandResultRecord`): the
 * explicit conversion, field by field, so a field added to the sandbox's result reaches the stored
 * format only when it is added here (with a version note in events.ts).
 */
import type { CommandResultRecord } from '../../streams/index.js';
import type { CommandResult } from '../sandbox/index.js';

export function resultRecord(r: CommandResult): CommandResultRecord {
  return {
    stdout: r.stdout,
    stderr: r.stderr,
    exitCode: r.exitCode,
    durationMs: r.durationMs,
    truncated: r.truncated,
    timedOut: r.timedOut,
    ...(r.blobs === undefined ? {} : { blobs: { ...r.blobs } }),
    ...(r.skipped === undefined ? {} : { skipped: r.skipped }),
    ...(r.fault === undefined ? {} : { fault: { code: r.fault.code, message: r.fault.message } }),
  };
}
