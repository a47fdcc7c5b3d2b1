/**
 * Forks an episode at a round: a new episode whose log starts with a copy of the original's events
 * up to the end of that round (its `episode.started` naming the new id, run, agent and the parent),
 * then goes on like a resumed episode — the machine folds the copied history, the sandboxes are
 * rebuilt from the latest snapshot at or before the round and the later recorded actions are
 * re-executed (GUI episodes: every action, on a fresh desktop) — and another agent plays from the
 * next round on. The copied events keep their spacing but are moved to end now, so the wall-clock
 * limit counts the original's time up to the round, not the time since it ran.
 */
import type { LoadedTask } from '../../tasks/index.js';
import type { EpisodeEvent, EpisodeLog } from '../../streams/index.js';
import type { Agent } from '../agents/index.js';
import { runEpisode, type EpisodeDeps, type EpisodeProgress, type EpisodeResult } from '../episode/index.js';
import { RunError } from './errors.js';

/** The last round whose actions all ran (a fork may branch at 0 … this). */
export function lastForkableRound(events: readonly EpisodeEvent[]): number {
  let round = 0;
  for (const e of events) if (e.type === 'action.executed') round = Math.max(round, e.round);
  return round;
}

/**
 * The original's events up to the end of round `at` (everything before the observation of round
 * `at + 1`), with `episode.started` rewritten for the fork and every `at` shifted to end at `now`.
 * @throws RunError `FORK_ROUND_INVALID` when `at` is not a round the original finished.
 */
export function forkPrefix(
  events: readonly EpisodeEvent[],
  at: number,
  fork: { episodeId: string; runId: string; agent: string; now: number },
): EpisodeEvent[] {
  const first = events[0];
  if (first?.type !== 'episode.started')
    throw new RunError('FORK_ROUND_INVALID', 'the log does not start with episode.started: not an episode');
  const last = lastForkableRound(events);
  if (!Number.isInteger(at) || at < 0 || at > last)
    throw new RunError(
      'FORK_ROUND_INVALID',
      `--at ${at}: episode ${first.episodeId} can be forked at a round from 0 to ${last} (the last round whose actions ran)`,
    );
  const later = events.findIndex((e) => 'round' in e && typeof e.round === 'number' && e.round > at);
  // No later round (the original hit its limit after round `at`): stop before its verification.
  const end =
    later >= 0
      ? later
      : events.findIndex((e) => e.type === 'verification.completed' || e.type === 'episode.ended');
  const prefix = events.slice(0, end < 0 ? events.length : end);
  const shift = fork.now - prefix.at(-1)!.at;
  return prefix.map((e, i) =>
    i === 0 && e.type === 'episode.started'
      ? {
          ...e,
          at: e.at + shift,
          episodeId: fork.episodeId,
          runId: fork.runId,
          agent: fork.agent,
          parent: { episodeId: first.episodeId, round: at },
        }
      : { ...e, at: e.at + shift },
  );
}

/** What {@link forkEpisode} needs. */
export interface ForkOptions {
  /** The original's events. */
  events: readonly EpisodeEvent[];
  at: number;
  episodeId: string;
  runId: string;
  /** Agent spec (recorded) and the agent built from it. */
  agentSpec: string;
  agent: Agent;
  artifactsDir: string;
  signal?: AbortSignal;
  onProgress?: (p: EpisodeProgress) => void;
}

/** Writes the fork's copied history to `log`, then runs it to its end. */
export async function forkEpisode(
  lt: LoadedTask,
  log: EpisodeLog,
  deps: EpisodeDeps,
  o: ForkOptions,
): Promise<EpisodeResult> {
  const now = deps.now ?? Date.now;
  const prior = forkPrefix(o.events, o.at, {
    episodeId: o.episodeId,
    runId: o.runId,
    agent: o.agentSpec,
    now: now(),
  });
  const w = log.writer(o.episodeId);
  for (const e of prior) await w.append(e);
  const writer = await log.resume(o.episodeId);
  return runEpisode(
    lt,
    { ...deps, openLog: () => writer },
    {
      episodeId: o.episodeId,
      runId: o.runId,
      agent: o.agent,
      artifactsDir: o.artifactsDir,
      prior,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    },
  );
}
