/** Errors of runs and forks. */
import { EngiloopError } from '../../core/index.js';

export type RunErrorCode =
  /** `fork --at` names a round the original did not finish (or the log is not an episode). */
  'FORK_ROUND_INVALID';

/** A run or fork that cannot start as asked. */
export class RunError extends EngiloopError<RunErrorCode> {
  override readonly name = 'RunError';
}
