/** The stages of a task: pure, shared by the episode machine's rules, stage checks and attribution. */
import type { Stage, Task } from './schema.js';

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
