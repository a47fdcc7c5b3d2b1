/**
 * Cross-references inside a task that the schema alone cannot check: every sandbox an input, an
 * action, a deliverable or a hand-off names exists; `breaks_at` and `after` name real stages; the
 * files verifiers read from the task folder exist. Each problem names its field and the fix, so
 * what would crash an episode at run time is a load error instead.
 */
import { MAX_GUI_WAIT_SEC, MAX_SCROLL_NOTCHES } from './limits.js';
import type { Action, SolutionStep, Task } from './schema.js';

/** A problem inside one file: the field path and what is wrong. */
export interface ReferenceProblem {
  field: string;
  message: string;
}

/** Stage names the deliverables use, in the order they first appear. */
function stageNames(task: Pick<Task, 'deliverables'>): string[] {
  return [...new Set(task.deliverables.flatMap((d) => (d.stage === undefined ? [] : [d.stage])))];
}

const GUI_ACTIONS = new Set(['click', 'double_click', 'move', 'drag', 'scroll', 'key', 'type', 'wait']);

/**
 * Problems with the sandboxes the actions of a solution name (`reference`, a variant's `actions`),
 * each at the field `round(r)` names for round index `r` (`[i]` is appended for a batch's actions).
 */
export function actionProblems(
  task: Task,
  steps: readonly SolutionStep[],
  round: (r: number) => string,
): ReferenceProblem[] {
  const names = Object.keys(task.environment.sandboxes);
  const have = `have: ${names.join(', ')}`;
  const out: ReferenceProblem[] = [];
  steps.forEach((step, r) => {
    const batch: Action[] = Array.isArray(step) ? step : [step];
    batch.forEach((a, i) => {
      const at = Array.isArray(step) ? `${round(r)}[${i}]` : round(r);
      const unknown = (key: string, name: string) =>
        out.push({ field: `${at}.${key}`, message: `unknown sandbox "${name}" (${have})` });
      if (a.type === 'shell') {
        if (a.sandbox !== undefined && !names.includes(a.sandbox)) unknown('sandbox', a.sandbox);
        if (task.interface === 'gui')
          out.push({ field: at, message: 'a GUI task refuses shell commands: use the GUI actions' });
      } else if (a.type === 'handoff') {
        if (!names.includes(a.from)) unknown('from', a.from);
        if (!names.includes(a.to)) unknown('to', a.to);
        if (a.from === a.to) out.push({ field: `${at}.to`, message: `hands off from "${a.from}" to itself` });
      } else if (GUI_ACTIONS.has(a.type) && task.interface === 'cli')
        out.push({ field: at, message: `${a.type} is a GUI action; a CLI task takes shell commands` });
      else out.push(...guiLimitProblems(a, at));
    });
  });
  return out;
}

/** A scripted GUI action past the GUI sandbox's limits would fail at run time: say so at load. */
function guiLimitProblems(a: Action, at: string): ReferenceProblem[] {
  if (a.type === 'wait' && a.seconds > MAX_GUI_WAIT_SEC)
    return [
      {
        field: `${at}.seconds`,
        message: `a wait of ${a.seconds} s: the GUI sandbox waits at most ${MAX_GUI_WAIT_SEC} s per action (split it into several waits)`,
      },
    ];
  if (a.type === 'scroll')
    return (['dx', 'dy'] as const)
      .filter((k) => Math.abs(Math.round(a[k])) > MAX_SCROLL_NOTCHES)
      .map((k) => ({
        field: `${at}.${k}`,
        message: `${a[k]} notches: the GUI sandbox scrolls at most ${MAX_SCROLL_NOTCHES} notches per axis and action`,
      }));
  return [];
}

/** Problems with what task.yaml itself names: input sandboxes and the reference's actions. */
export function taskReferenceProblems(task: Task): ReferenceProblem[] {
  const names = Object.keys(task.environment.sandboxes);
  const out: ReferenceProblem[] = [];
  task.inputs.files.forEach((f, i) => {
    if (f.sandbox !== undefined && !names.includes(f.sandbox))
      out.push({
        field: `inputs.files[${i}].sandbox`,
        message: `unknown sandbox "${f.sandbox}" (have: ${names.join(', ')})`,
      });
  });
  out.push(...actionProblems(task, task.reference, (r) => `reference[${r}]`));
  return out;
}

/** Problems with a defect's `breaks_at`: its stage must be one the task's deliverables name. */
export function breaksAtProblems(
  task: Task,
  breaksAt: { stage: string | null } | undefined,
): ReferenceProblem[] {
  if (breaksAt?.stage === undefined || breaksAt.stage === null) return [];
  const stages = stageNames(task);
  return stages.includes(breaksAt.stage)
    ? []
    : [
        {
          field: 'breaks_at.stage',
          message: `"${breaksAt.stage}" is not a stage of task ${task.id} (stages: ${stages.join(', ') || 'none'}; null for an unstaged failure)`,
        },
      ];
}
