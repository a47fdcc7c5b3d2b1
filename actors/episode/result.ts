/** An episode's result, read off its machine snapshot (live) or its log (status, results, resume). */
import { fold, type FoldedSnapshot } from '../../machines/index.js';
import type { ErrorData, EpisodeEvent } from '../../streams/index.js';
import { attribute, type Attribution } from './attribute.js';
import type { AgentUsage, EpisodeResult } from './ports.js';

export interface ResultFacts {
  episodeId: string;
  taskId: string;
  agent: string;
  durationMs: number;
  events: number;
  snapshotDigest: string | null;
  /** A failure to record, which overrides the machine's status. */
  recordingError?: ErrorData | null;
  /** Model usage summed over the episode (see {@link agentUsage}). */
  usage?: AgentUsage | null;
  /** Where a multi-software chain broke (see `attribute.ts`). */
  attribution?: Attribution | null;
  /** The stage whose failed check halted the episode (see {@link haltedStage}). */
  haltedAt?: string | null;
  /** The episode this one was forked from (its `episode.started.parent`). */
  parent?: { episodeId: string; round: number } | null;
}

/** The `halt_on_fail` stage whose failed check ended an episode, from its log; null when none did. */
export function haltedStage(events: readonly EpisodeEvent[]): string | null {
  const halt = events.find((e) => e.type === 'stage.checked' && e.halt);
  return halt?.type === 'stage.checked' ? halt.stage : null;
}

/**
 * Sums a model-backed agent's calls over an episode's events; null for agents that report none
 * (scripted). Cost is null as soon as one call had no price.
 */
export function agentUsage(events: readonly EpisodeEvent[]): AgentUsage | null {
  let u: AgentUsage | null = null;
  for (const e of events) {
    if (e.type === 'agent.retried' && u) u.retries++;
    if (e.type === 'agent.retried' && !u)
      u = { calls: 0, input: 0, output: 0, cached: 0, costUsd: 0, retries: 1, latencyMs: 0 };
    if (e.type !== 'agent.decided' || !e.call) continue;
    u ??= { calls: 0, input: 0, output: 0, cached: 0, costUsd: 0, retries: 0, latencyMs: 0 };
    u.calls++;
    u.input += e.call.usage.input;
    u.output += e.call.usage.output;
    u.cached += e.call.usage.cached;
    u.latencyMs += e.call.latencyMs;
    u.costUsd = u.costUsd === null || e.call.costUsd === null ? null : u.costUsd + e.call.costUsd;
  }
  return u;
}

export function resultOf(snap: FoldedSnapshot, f: ResultFacts): EpisodeResult {
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
    usage: f.usage ?? null,
    attribution: f.attribution ?? null,
    haltedAt: f.haltedAt ?? null,
    parent: f.parent ?? null,
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
    usage: agentUsage(events),
    attribution: attribute(events),
    haltedAt: haltedStage(events),
    parent: first.parent ?? null,
  });
}
