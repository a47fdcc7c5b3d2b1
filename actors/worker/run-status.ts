/**
 * A run's progress and results, read from the episode logs (results are a fold too): the run
 * record lists its episodes; each episode's last event tells where it is.
 */
import { retry } from '../../core/index.js';
import type { EpisodeLog, RunIndex } from '../../streams/index.js';
import { resultFromLog, type EpisodeResult } from '../episode/index.js';
import { summarize, type RunSummary } from '../run/index.js';

export interface EpisodeStatusRow {
  episodeId: string;
  /** `pending` (no event yet), the machine state's last event type while running, or the final status. */
  state: string;
  round: number | null;
  ended: boolean;
}

/** Where each episode of the run is, from its last event. */
export async function runProgress(log: EpisodeLog, episodes: readonly string[]): Promise<EpisodeStatusRow[]> {
  return Promise.all(
    episodes.map(async (id) => {
      const e = await log.last(id);
      if (!e) return { episodeId: id, state: 'pending', round: null, ended: false };
      if (e.type === 'episode.ended') return { episodeId: id, state: e.status, round: e.rounds, ended: true };
      const round = 'round' in e && typeof e.round === 'number' ? e.round : null;
      return { episodeId: id, state: e.type, round, ended: false };
    }),
  );
}

/** Results of the episodes that ended, and the summary once all have. */
export async function runResults(
  log: EpisodeLog,
  episodes: readonly string[],
): Promise<{ results: EpisodeResult[]; summary: RunSummary; complete: boolean }> {
  const results: EpisodeResult[] = [];
  for (const id of episodes) {
    const r = resultFromLog(await log.read(id));
    if (r) results.push(r);
  }
  return { results, summary: summarize(results), complete: results.length === episodes.length };
}

/**
 * Writes the run's `run.finished` record once every episode has ended. Any worker may try; the
 * first wins and the others' attempts are refused (which is fine).
 */
export async function finishRunIfComplete(log: EpisodeLog, runs: RunIndex, runId: string): Promise<boolean> {
  const rec = await runs.get(runId);
  if (!rec || rec.finished) return false;
  const progress = await runProgress(log, rec.started.episodes);
  if (!progress.every((p) => p.ended)) return false;
  const { results, summary } = await runResults(log, rec.started.episodes);
  const finish = async (): Promise<boolean> => {
    try {
      await runs.finish(runId, {
        runId,
        suite: rec.started.suite,
        agent: rec.started.agent,
        results,
        summary,
      });
      return true;
    } catch (err) {
      if ((await runs.get(runId).catch(() => null))?.finished) return false; // another worker finished it
      throw err;
    }
  };
  // Retried through a leader election or a restart (RETRY_BUDGET, about 20 s), whatever the
  // failure: a lost record would leave the run unfinished for `status` though every episode ended.
  return retry(finish, { retryable: () => true }).catch(() => false);
}
