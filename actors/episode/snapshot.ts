/**
 * Workspace snapshots during an episode: every `limits.snapshot_every` rounds and after each stage
 * check, each sandbox's writable state goes to the object store, so a resume restores the latest one
 * and re-executes only the actions recorded after it.
 */
import { performance } from 'node:perf_hooks';
import type { EpisodeEvent, EventDraft, WorkspaceSnapshotted } from '../../streams/events.js';
import type { EffectScope } from './effects.js';

/** Takes a snapshot of every sandbox of the episode. */
export async function takeSnapshot(
  s: EffectScope,
  round: number,
  reason: WorkspaceSnapshotted['reason'],
): Promise<EventDraft> {
  const t0 = performance.now();
  const sandboxes: WorkspaceSnapshotted['sandboxes'] = {};
  for (const [name, sb] of s.sandboxes) {
    const tgz = await sb.snapshot();
    sandboxes[name] = { digest: await s.deps.blobs.put(tgz), bytes: tgz.length };
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

/** Whether a snapshot is due after `round` rounds (interval rule), given the events so far. */
export function snapshotDue(events: readonly EpisodeEvent[], round: number, every: number): boolean {
  if (every <= 0 || round <= 0 || round % every !== 0) return false;
  return latestSnapshot(events)?.event.round !== round;
}
