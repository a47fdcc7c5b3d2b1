import { randomBytes } from 'node:crypto';

/** A run id: sortable by time, unique enough across machines (`r` + base36 ms + 6 hex). */
export function newRunId(now: number = Date.now()): string {
  return `r${now.toString(36)}${randomBytes(3).toString('hex')}`;
}

/** Episode id within a run: `<run>-<task>-<k>`; valid as a NATS subject token. */
export function episodeId(runId: string, taskId: string, k: number): string {
  return `${runId}-${taskId}-${k}`;
}
