/** The stages of a task and of an episode's log: pure, shared by stage checks and attribution. */
import type { EpisodeEvent, StageChecked } from '../../streams/events.js';
import type { Stage, Task } from '../../tasks/index.js';

/** Every stage of a task, in order: those listed under `stages`, then the others deliverables name. */
export function stagesOf(task: Task): Stage[] {
  const listed = task.stages ?? [];
  const names = new Set(listed.map((s) => s.name));
  const extra: Stage[] = [];
  for (const d of task.deliverables)
    if (d.stage && !names.has(d.stage)) {
      names.add(d.stage);
      extra.push({ name: d.stage, halt_on_fail: false, min_score: 1, weight: 0 });
    }
  return [...listed, ...extra];
}

/** The latest check of each stage in `events`. */
export function latestStages(events: readonly EpisodeEvent[]): Map<string, StageChecked> {
  const m = new Map<string, StageChecked>();
  for (const e of events) if (e.type === 'stage.checked') m.set(e.stage, e);
  return m;
}
