/** An episode's result, read off its machine snapshot (live) or its log (status, results, resume). */
import { fold, type EpisodeSnapshot } from '../../machines/index.js';
import type { ErrorData, EpisodeEvent } from '../../streams/events.js';
import type { EpisodeResult } from './ports.js';

export interface ResultFacts {
  episodeId: string;
  taskId: string;
  agent: string;
  durationMs: number;
  events: number;
  snapshotDigest: string | null;
  /** A failure to record, which overrides the machine's status. */
  recordingError?: ErrorData | null;
}

export function resultOf(snap: EpisodeSnapshot, f: ResultFacts): EpisodeResult {
  const c = snap.context;
  const status = f.recordingError || !c.status ? 'infra_error' : c.status;
  return {
    episodeId: f.episodeId,
    taskId: f.taskId,
    agent: f.agent,
    status,
    score: status === 'infra_error' ? null : (c.verification?.score ?? 0),
    passed: status !== 'infra_error' && (c.verification?.passed ?? false),
    rounds: c.round,
    durationMs: f.durationMs,
    verdicts: c.verification?.verdicts ?? [],
    error: f.recordingError ?? (c.error ? { code: c.error.code, message: c.error.message } : null),
    snapshotDigest: f.recordingError ? null : f.snapshotDigest,
    events: f.events,
  };
}

/** The result of a finished episode from its log; null while it has not ended. */
export function resultFromLog(events: readonly EpisodeEvent[]): EpisodeResult | null {
  const first = events[0];
  const last = events.at(-1);
  if (first?.type !== 'episode.started' || last?.type !== 'episode.ended') return null;
  return resultOf(fold(events), {
    episodeId: first.episodeId,
    taskId: first.task.id,
    agent: first.agent,
    durationMs: last.at - first.at,
    events: events.length,
    snapshotDigest: last.snapshotDigest,
  });
}
