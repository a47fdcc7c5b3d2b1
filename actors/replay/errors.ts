import { EngiloopError } from '../../machines/errors.js';

/** Folding the log did not give the state the log recorded: the replay is not deterministic. */
export class ReplayDivergenceError extends EngiloopError {
  override readonly name = 'ReplayDivergenceError';
  constructor(
    /** The round whose events no longer give the recorded state (found at the next digest). */
    readonly round: number,
    /** Index of the event (0-based) where the difference was found. */
    readonly eventIndex: number,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      'REPLAY_DIVERGENCE',
      `replay diverged in round ${round}: at event ${eventIndex + 1} the log recorded state ${expected.slice(0, 12)}… but folding gives ${actual.slice(0, 12)}…`,
    );
  }
}

export function isReplayDivergence(err: unknown): err is ReplayDivergenceError {
  return err instanceof ReplayDivergenceError;
}
