/**
 * `--every-round` verdict traces: for an episode whose snapshots are sparser than its rounds, the
 * recorded agent outputs are played again in a fresh episode (fresh sandboxes, the same task) that
 * takes a snapshot after every round, and that episode is traced. The re-execution is compared with
 * the original (replay/execute.ts `compareLogs`): a divergence is reported, since the rounds after
 * it may not show what the original did.
 */
import type { AgentDecided, EpisodeEvent } from '../../streams/index.js';
import type { LoadedTask } from '../../tasks/index.js';
import type { Agent } from '../agents/index.js';
import { runEpisode, type EpisodeDeps } from '../episode/index.js';
import { compareLogs } from '../replay/index.js';
import { AnalysisError } from './errors.js';
import type { Reexecution, VerdictTrace } from './trace-series.js';
import { traceEpisode, type TraceOptions } from './trace.js';

/** What {@link traceEveryRound} needs beyond {@link TraceOptions}. */
export interface EveryRoundOptions extends TraceOptions {
  /** Id of the re-executed episode (its own log subject). */
  episodeId: string;
  runId: string;
  /** Host folder for the re-executed episode's artifacts. */
  artifactsDir: string;
  /** Reads an episode's events back with their stream sequences (the re-execution's log). */
  read: (episodeId: string) => Promise<{ events: EpisodeEvent[]; seqs: number[] }>;
}

/** A trace of every round, and how the re-execution it was read from compared with the original. */
export interface EveryRoundTrace extends VerdictTrace {
  reexecuted: Reexecution;
}

/** Plays the recorded agent outputs back by round; past the record it says DONE. */
function recorded(events: readonly EpisodeEvent[], name: string): Agent {
  const byRound = new Map<number, unknown>();
  for (const e of events) if (e.type === 'agent.decided') byRound.set(e.round, (e as AgentDecided).raw);
  return {
    name,
    decide: ({ round }) => Promise.resolve(byRound.has(round) ? byRound.get(round) : { done: true }),
  };
}

/**
 * Re-executes `events` (an episode of `lt`) with a snapshot after every round and traces it. The
 * trace's points and seqs are the re-execution's; `episodeId` is the original's.
 * @throws AnalysisError `NOT_AN_EPISODE` when `events` does not start with `episode.started`.
 */
export async function traceEveryRound(
  events: readonly EpisodeEvent[],
  lt: LoadedTask,
  deps: EpisodeDeps,
  o: EveryRoundOptions,
): Promise<EveryRoundTrace> {
  const first = events[0];
  if (first?.type !== 'episode.started')
    throw new AnalysisError('NOT_AN_EPISODE', 'the log does not start with episode.started');
  const t0 = performance.now();
  await runEpisode(lt, deps, {
    episodeId: o.episodeId,
    runId: o.runId,
    agent: recorded(events, `trace:${first.agent}`),
    artifactsDir: o.artifactsDir,
    snapshotEvery: 1,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const durationMs = performance.now() - t0;
  const again = await o.read(o.episodeId);
  const { divergence } = compareLogs(events, again.events, lt.task.volatile);
  const trace = await traceEpisode(again.events, again.seqs, lt, deps, o);
  return {
    ...trace,
    episodeId: first.episodeId,
    reexecuted: { episodeId: o.episodeId, divergence, durationMs },
  };
}
