/**
 * Workspace snapshots during an episode: every `limits.snapshot_every` rounds and after each stage
 * check, each sandbox's writable state goes to the object store, so a resume restores the latest one
 * and re-executes only the actions recorded after it.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { EpisodeEvent, EventDraft, WorkspaceSnapshotted } from '../../streams/index.js';
import { isSandboxIo } from '../sandbox/index.js';
import { chargeStore, storeBudget } from './collect.js';
import type { EffectScope } from './scope.js';

/** Bytes of snapshots stored so far in `events`. */
export function snapshotBytes(events: readonly EpisodeEvent[]): number {
  let n = 0;
  for (const e of events)
    if (e.type === 'workspace.snapshotted') for (const sb of Object.values(e.sandboxes)) n += sb.bytes;
  return n;
}

/**
 * Takes a snapshot of every sandbox of the episode, each streamed to a host file and stored from
 * it, within what is left of `limits.store_budget_mb` (see collect.ts); past it, the snapshot is skipped.
 */
export async function takeSnapshot(
  s: EffectScope,
  round: number,
  reason: WorkspaceSnapshotted['reason'],
): Promise<EventDraft> {
  const t0 = performance.now();
  const sandboxes: WorkspaceSnapshotted['sandboxes'] = {};
  const { budget, used } = storeBudget(s);
  let taken = 0;
  const dir = join(s.opts.artifactsDir, '.snapshots');
  await mkdir(dir, { recursive: true });
  for (const [name, sb] of s.sandboxes) {
    const file = join(dir, `${name}-r${round}.tgz`);
    try {
      let r: Awaited<ReturnType<typeof sb.snapshotTo>>;
      try {
        r = await sb.snapshotTo(file, Math.max(0, budget - used - taken));
      } catch (e) {
        // tar could not read what the agent made unreadable (chmod 000): the agent's doing, so the
        // snapshot is skipped, not the episode given up. A lost container still goes up.
        if (!isSandboxIo(e)) throw e;
        return {
          type: 'snapshot.skipped',
          round,
          reason,
          sandbox: name,
          bytes: 0,
          usedBytes: used,
          budgetBytes: budget,
          error: (e as Error).message,
        };
      }
      if (!r.ok)
        return {
          type: 'snapshot.skipped',
          round,
          reason,
          sandbox: name,
          bytes: r.bytes,
          usedBytes: used,
          budgetBytes: budget,
          ...(r.error === undefined ? {} : { error: r.error }),
        };
      sandboxes[name] = { digest: await s.deps.blobs.putFile(file, r.sha256), bytes: r.bytes };
      taken += r.bytes;
      chargeStore(s, r.sha256, r.bytes);
    } finally {
      await rm(file, { force: true });
    }
  }
  return {
    type: 'workspace.snapshotted',
    round,
    reason,
    sandboxes,
    durationMs: Math.round(performance.now() - t0),
  };
}

/** The latest snapshot in `events` and its position, or null. */
export function latestSnapshot(
  events: readonly EpisodeEvent[],
): { event: WorkspaceSnapshotted; index: number } | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === 'workspace.snapshotted') return { event: e, index: i };
  }
  return null;
}
