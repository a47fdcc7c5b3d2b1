import { EngiloopError } from '../../core/index.js';

export type ReplayErrorCode =
  /** Folding the log does not give the run it recorded. */
  'REPLAY_DIVERGENCE';

/**
 * Folding the log did not give the run the log recorded: a recorded state digest differs from the
 * folded one, or (machine 2) the log holds an event the machine's rules do not accept where it
 * stands (an altered log, or a runner that broke a rule). Either way the replay is not the run.
 */
export class ReplayDivergenceError extends EngiloopError<ReplayErrorCode> {
  override readonly name = 'ReplayDivergenceError';
  constructor(
    /** The round whose events no longer give the recorded run. */
    readonly round: number,
    /** Index of the event (0-based) where the difference was found. */
    readonly eventIndex: number,
    /** Digest recorded and digest folded; or, for a rejected event, what the machine expected and the event. */
    readonly expected: string,
    readonly actual: string,
    /** `digest`: the recorded digest differs; `rejected`: the machine did not accept the event. */
    readonly kind: 'digest' | 'rejected' = 'digest',
  ) {
    super(
      'REPLAY_DIVERGENCE',
      kind === 'digest'
        ? `replay diverged in round ${round}: at event ${eventIndex + 1} the log recorded state ${expected.slice(0, 12)}… but folding gives ${actual.slice(0, 12)}…`
        : `replay diverged in round ${round}: event ${eventIndex + 1} (${actual}) breaks the machine's rules; it expected ${expected}`,
    );
  }
}

export function isReplayDivergence(err: unknown): err is ReplayDivergenceError {
  return err instanceof ReplayDivergenceError;
}
