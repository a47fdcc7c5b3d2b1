import { EngiloopError } from '../machines/errors.js';

/** A task folder that cannot be used: names the file, the field path and what was expected. */
export class TaskLoadError extends EngiloopError {
  override readonly name = 'TaskLoadError';
  /** File the problem is in. */
  readonly file: string;
  /** Field path inside the file, e.g. `limits.max_rounds` (empty for whole-file problems). */
  readonly field: string;

  constructor(file: string, field: string, message: string, cause?: unknown) {
    super('TASK_INVALID', `${file}${field ? `: ${field}` : ''}: ${message}`, { cause });
    this.file = file;
    this.field = field;
  }
}

export function isTaskLoadError(err: unknown): err is TaskLoadError {
  return err instanceof TaskLoadError;
}
