import { EngiloopError } from '../core/index.js';

/** Every code raised under `tasks/`: a task folder that cannot be used is its only error. */
export type TasksErrorCode = 'TASK_INVALID';

/** One problem of a task folder: the file, the field path inside it, and what is wrong. */
export interface TaskProblem {
  file: string;
  /** Field path inside the file, e.g. `criteria[3].params.abs_tl` (empty for whole-file problems). */
  field: string;
  message: string;
}

/** `file: field: message`, as every task problem is printed. */
export function formatProblem(p: TaskProblem): string {
  return `${p.file}${p.field ? `: ${p.field}` : ''}: ${p.message}`;
}

/**
 * A task folder that cannot be used: names the file, the field path and what was expected. When a
 * task has several problems, `file`/`field` are the first one's and `problems` lists them all.
 */
export class TaskLoadError extends EngiloopError<TasksErrorCode> {
  override readonly name = 'TaskLoadError';
  /** File the (first) problem is in. */
  readonly file: string;
  /** Field path inside the file, e.g. `limits.max_rounds` (empty for whole-file problems). */
  readonly field: string;
  /** Every problem found, the first one first. */
  readonly problems: readonly TaskProblem[];

  constructor(
    file: string,
    field: string,
    message: string,
    cause?: unknown,
    more: readonly TaskProblem[] = [],
  ) {
    const extra = more.length > 0 ? ` (and ${more.length} more problem(s))` : '';
    super('TASK_INVALID', `${formatProblem({ file, field, message })}${extra}`, { cause });
    this.file = file;
    this.field = field;
    this.problems = [{ file, field, message }, ...more];
  }

  /** One error for a non-empty list of problems. */
  static of(problems: readonly TaskProblem[], cause?: unknown): TaskLoadError {
    const [first, ...more] = problems;
    return new TaskLoadError(first!.file, first!.field, first!.message, cause, more);
  }
}

/** True when `err` is a {@link TaskLoadError} (`TASK_INVALID`). */
export function isTaskLoadError(err: unknown): err is TaskLoadError {
  return err instanceof TaskLoadError;
}
