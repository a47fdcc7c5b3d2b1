/**
 * Resume: rebuild the sandboxes of an episode whose worker died (or whose sandbox vanished), by
 * provisioning fresh ones, unpacking the latest workspace snapshot into them, and re-running every
 * action recorded after that snapshot in order, comparing each result with the recorded one.
 * GUI tasks use no snapshot (their apps' state is in memory): every action is re-run from the start
 * on a fresh desktop.
 *
 * Rule for an interrupted action (an `action.started` with no `action.executed`): it is re-run, once,
 * by the resuming worker, and its result is recorded then; nothing of the interrupted attempt was
 * recorded, so no action result is ever recorded twice.
 */
import { hostname } from 'node:os';
import type { Effect } from '../../machines/index.js';
import type { ActionExecuted, EpisodeEvent, EventDraft } from '../../streams/index.js';
import { actionFromRecord } from '../../tasks/index.js';
import { firstDiff, normalizer } from './normalize.js';
import * as fx from './effects.js';
import { latestSnapshot } from './snapshot.js';
import { formatResult } from './observe.js';

/** The action that started but has no recorded result, if any. */
function interruptedAction(events: readonly EpisodeEvent[]): { round: number; index: number } | null {
  const done = new Set(
    events.filter((e) => e.type === 'action.executed').map((e) => `${e.round}.${e.index}`),
  );
  const started = events.filter((e) => e.type === 'action.started' && !done.has(`${e.round}.${e.index}`));
  const last = started.at(-1);
  return last?.type === 'action.started' ? { round: last.round, index: last.index } : null;
}

/**
 * Rebuilds the sandboxes (fresh containers, the latest workspace snapshot, then every action
 * recorded after it re-executed and compared) and returns the `episode.resumed` event to record.
 * Dead sandboxes in `s.sandboxes` are closed first. The machine says when (`effect.rebuild` false:
 * none had been provisioned); a task whose rules take no snapshots (GUI) re-runs every action.
 */
export async function restore(
  s: fx.EffectScope,
  prior: readonly EpisodeEvent[],
  effect: Extract<Effect, { type: 'restore' }>,
): Promise<EventDraft> {
  const now = s.deps.now ?? Date.now;
  const t0 = now();
  const { reason, state } = effect;
  const worker = `${hostname()}:${process.pid}`;
  const base = {
    type: 'episode.resumed' as const,
    worker,
    state,
    reason,
    interrupted: interruptedAction(prior),
  };
  const lastAt =
    [...prior].reverse().find((e) => e.type !== 'episode.claimed' && e.type !== 'sandbox.lost')?.at ?? t0;
  await Promise.allSettled([...s.sandboxes.values()].map((sb) => sb.close()));
  s.sandboxes.clear();
  // Before provisioning there is no sandbox state to restore.
  if (!effect.rebuild)
    return {
      ...base,
      sandboxes: {},
      replayed: 0,
      divergences: [],
      snapshotRound: null,
      downtimeMs: now() - lastAt,
      restoreMs: 0,
    };
  // A dead worker on this host left its containers running: remove them first (one on another
  // host is removed when a worker starts there).
  if (reason === 'worker_lost')
    await s.deps.sandboxes
      .removeOrphans?.({ labels: { 'io.engiloop.episode': s.opts.episodeId } })
      .catch(() => 0);
  const provisioned = await fx.provision(s);
  const sandboxes = provisioned.type === 'sandbox.provisioned' ? provisioned.sandboxes : {};
  const snapshot = latestSnapshot(prior);
  if (snapshot)
    for (const [name, { digest }] of Object.entries(snapshot.event.sandboxes)) {
      const sb = s.sandboxes.get(name);
      if (sb) await sb.restore(Buffer.from(await s.deps.blobs.get(digest)));
    }
  const norm = normalizer(s.lt.task.volatile);
  const divergences: { round: number; index: number; diff: string }[] = [];
  const recorded = prior
    .slice(snapshot ? snapshot.index + 1 : 0)
    .filter((e): e is ActionExecuted => e.type === 'action.executed' && !e.result.skipped);
  for (const e of recorded) {
    const r = await fx.execute(s, actionFromRecord(e.action), e.round, s.span);
    const [a, b] = [norm(formatResult(e.action, e.result)), norm(formatResult(e.action, r))];
    if (a !== b) divergences.push({ round: e.round, index: e.index, diff: firstDiff(a, b) });
  }
  const t1 = now();
  return {
    ...base,
    sandboxes,
    replayed: recorded.length,
    divergences,
    snapshotRound: snapshot?.event.round ?? null,
    downtimeMs: t1 - lastAt,
    restoreMs: t1 - t0,
  };
}
