/** Aggregates episode results into the EngiScore and per-status counts. */
import { engiScore } from '../../verifiers/index.js';
import type { EpisodeResult } from '../episode/index.js';

export interface RunSummary {
  /** 100 × mean over tasks of each task's mean score; infra_error episodes are not scored. */
  engiScore: number | null;
  episodes: number;
  byStatus: Record<string, number>;
  /** Tasks whose every episode was an infra_error, so they are left out of the EngiScore. */
  unscoredTasks: string[];
  /** Task id → mean score over its scored episodes. */
  taskScores: Record<string, number>;
}

export function summarize(results: readonly EpisodeResult[]): RunSummary {
  const perTask = new Map<string, number[]>();
  const all = new Set<string>();
  const byStatus: Record<string, number> = {};
  for (const r of results) {
    all.add(r.taskId);
    byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    if (r.status === 'infra_error' || r.score === null) continue;
    perTask.set(r.taskId, [...(perTask.get(r.taskId) ?? []), r.score]);
  }
  const taskScores: Record<string, number> = {};
  for (const [t, s] of perTask) taskScores[t] = s.reduce((a, b) => a + b, 0) / s.length;
  return {
    engiScore: perTask.size ? engiScore(perTask) : null,
    episodes: results.length,
    byStatus,
    unscoredTasks: [...all].filter((t) => !perTask.has(t)),
    taskScores,
  };
}
