/**
 * Gathers a run's episode summaries: the stored ones, and for episodes without one (ended before
 * summaries existed, or the writer failed) the summary refolded from the log and stored for next
 * time. Episodes still running are counted apart.
 */
import type { EpisodeLog, EpisodeSummaryRecord, RunIndex, SummaryStore } from '../../streams/index.js';
import { AnalysisError } from './errors.js';
import { summarizeStored, type EpisodeSummary } from './summary.js';

/** What `loadRun` found. */
export interface LoadedRun {
  runId: string;
  summaries: EpisodeSummary[];
  /** Episodes whose summary was missing and was rebuilt from the log. */
  refolded: number;
  /** Episodes that have not ended (no summary possible yet). */
  pending: string[];
}

/** The stores `loadRun` reads. */
export interface AnalysisStores {
  log: EpisodeLog;
  runs: RunIndex;
  summaries: SummaryStore;
}

/**
 * The summaries of every episode of `runId`, in the run's episode order. `onProgress(done, total)`
 * is called after each refolded episode.
 * @throws AnalysisError `UNKNOWN_ID` when no run has that id.
 */
export async function loadRun(
  s: AnalysisStores,
  runId: string,
  onProgress?: (done: number, total: number) => void,
): Promise<LoadedRun> {
  const rec = await s.runs.get(runId);
  if (!rec) throw new AnalysisError('UNKNOWN_ID', `no run "${runId}" (list them with: engiloop runs)`);
  const stored: Map<string, EpisodeSummaryRecord> = await s.summaries.forRun(runId);
  const missing = rec.started.episodes.filter((id) => !stored.has(id));
  const rebuilt = new Map<string, EpisodeSummary>();
  const pending: string[] = [];
  let done = 0;
  for (const id of missing) {
    const sum = await summarizeStored(s.log, id);
    if (sum) {
      rebuilt.set(id, sum);
      await s.summaries.put(sum).catch(() => undefined); // derived data: next time is faster
    } else pending.push(id);
    onProgress?.(++done, missing.length);
  }
  const summaries = rec.started.episodes.flatMap((id) => {
    const x = stored.get(id) ?? rebuilt.get(id);
    if (!x) return [];
    const { type: _t, v: _v, ...rest } = x as EpisodeSummaryRecord;
    return [rest as EpisodeSummary];
  });
  return { runId, summaries, refolded: rebuilt.size, pending };
}
