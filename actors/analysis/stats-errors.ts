import { EngiloopError } from '../../core/index.js';

/** Why a statistic could not be computed. */
export type StatsErrorCode =
  /** pass@k or pass^k asked for more draws (`k`) than a task has repeats (`n`). */
  | 'K_TOO_LARGE'
  /** A task (or a whole input) that must hold at least one value holds none. */
  | 'EMPTY'
  /** A value or option out of its domain: a non-finite score, `c > n`, `level` outside (0, 1)… */
  | 'INVALID_INPUT'
  /** Paired inputs (run A against run B) of different lengths. */
  | 'LENGTH_MISMATCH';

/**
 * A statistic of `analyze` / `compare` refused its input. The message names the field or task and
 * the fix (e.g. `pass@5 needs at least 5 repeats per task; task beam-1 has 3 (run with --repeat 5)`).
 * Never retryable: the same input fails the same way.
 */
export class StatsError extends EngiloopError<StatsErrorCode> {
  override readonly name = 'StatsError';
  constructor(code: StatsErrorCode, message: string) {
    super(code, message);
  }
}

/** True when `err` is a {@link StatsError}, and, when `code` is given, one with that code. */
export function isStatsError(err: unknown, code?: StatsErrorCode): err is StatsError {
  return err instanceof StatsError && (code === undefined || err.code === code);
}
