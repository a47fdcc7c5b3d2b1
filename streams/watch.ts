/**
 * Changes to the stores as they happen, for live views: an episode's new event, a run started or
 * finished, a summary written. A plain NATS subscription on the streams' subjects — it sees each
 * message as JetStream stores it, at most once, so a viewer that must not miss one rereads the
 * stores after a gap (the live view refreshes on a timer as well).
 */
import type { NatsConnection } from '@nats-io/nats-core';
import { EPISODE_SUBJECT_PREFIX, RUN_SUBJECT_PREFIX, SUMMARY_SUBJECT_PREFIX } from './log.js';

/** One change. `id` is the episode or run id; `runId` is set for a summary. */
export type StoreChange =
  | { kind: 'episode'; id: string }
  | { kind: 'run'; id: string }
  | { kind: 'summary'; id: string; runId: string };

/** Calls `on` for every change until the returned function is called. */
export function watchChanges(nc: NatsConnection, on: (c: StoreChange) => void): () => void {
  const subs = [
    nc.subscribe(`${EPISODE_SUBJECT_PREFIX}>`, {
      callback: (_e, m) => on({ kind: 'episode', id: m.subject.slice(EPISODE_SUBJECT_PREFIX.length) }),
    }),
    nc.subscribe(`${RUN_SUBJECT_PREFIX}>`, {
      callback: (_e, m) => on({ kind: 'run', id: m.subject.slice(RUN_SUBJECT_PREFIX.length) }),
    }),
    nc.subscribe(`${SUMMARY_SUBJECT_PREFIX}>`, {
      callback: (_e, m) => {
        const [runId = '', id = ''] = m.subject.slice(SUMMARY_SUBJECT_PREFIX.length).split('.');
        on({ kind: 'summary', id, runId });
      },
    }),
  ];
  return () => {
    for (const s of subs) s.unsubscribe();
  };
}
