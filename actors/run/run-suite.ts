/**
 * Runs a set of tasks: `repeat` episodes each, `concurrency` at once, each in its own sandboxes.
 * The agent spec is checked for every task before any episode starts (bad input fails early).
 */
import { join } from 'node:path';
import type { LoadedTask } from '../../tasks/index.js';
import { createAgent } from '../agents/index.js';
import { runEpisode, type EpisodeDeps, type EpisodeProgress, type EpisodeResult } from '../episode/index.js';
import { episodeId } from './ids.js';
import { pool } from './pool.js';
import { summarize, type RunSummary } from './summary.js';

export interface SuiteRunOptions {
  runId: string;
  /** e.g. `scripted` or `scripted:<defect>`. */
  agent: string;
  concurrency: number;
  repeat: number;
  /** Root for this run's artifacts: `<dir>/<episode>/artifacts`. */
  runDir: string;
  signal?: AbortSignal;
  onProgress?: (p: EpisodeProgress) => void;
  /** Called as each episode ends; awaited before the slot takes the next episode. */
  onEpisodeEnd?: (r: EpisodeResult) => void | Promise<void>;
}

export interface SuiteRun {
  runId: string;
  results: EpisodeResult[];
  summary: RunSummary;
}

/** The episodes a run will hold, in order. */
export function planEpisodes(
  runId: string,
  tasks: readonly LoadedTask[],
  repeat: number,
): { lt: LoadedTask; episodeId: string }[] {
  return tasks.flatMap((lt) =>
    Array.from({ length: repeat }, (_, k) => ({ lt, episodeId: episodeId(runId, lt.task.id, k + 1) })),
  );
}

export async function runSuite(
  tasks: readonly LoadedTask[],
  deps: EpisodeDeps,
  o: SuiteRunOptions,
): Promise<SuiteRun> {
  for (const lt of tasks) createAgent(o.agent, lt); // throws AgentError before anything starts
  const plan = planEpisodes(o.runId, tasks, o.repeat);
  const results = await pool(plan, o.concurrency, async ({ lt, episodeId: id }) => {
    const r = await runEpisode(lt, deps, {
      episodeId: id,
      runId: o.runId,
      agent: createAgent(o.agent, lt),
      artifactsDir: join(o.runDir, id, 'artifacts'),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    });
    await o.onEpisodeEnd?.(r);
    return r;
  });
  return { runId: o.runId, results, summary: summarize(results) };
}
