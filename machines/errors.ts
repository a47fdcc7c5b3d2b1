/** Errors of the episode machine and its fold. */
import { EngiloopError } from '../core/index.js';

export type MachineErrorCode =
  /** An event the machine's current state does not accept: the log does not follow its rules. */
  | 'EVENT_REJECTED'
  /** A log written under rules this build does not know (a newer engiloop, or an unknown flag). */
  | 'MACHINE_VERSION_UNKNOWN'
  /** A state with no effect listed for it (a bug in machines/effects.ts). */
  | 'NO_EFFECT';

export class MachineError extends EngiloopError<MachineErrorCode> {
  override readonly name: string = 'MachineError';
}

/**
 * Folding met an event the machine does not accept where it stands: a log altered by hand, written
 * out of order, or by a runner that broke a rule (ran an action after a failed GUI action, skipped
 * a due snapshot, went on past the lost-sandbox budget). Names the round, the event and the state.
 */
export class EventRejectedError extends MachineError {
  override readonly name = 'EventRejectedError';
  constructor(
    /** Rounds decided when the event came (the round it belongs to). */
    readonly round: number,
    /** Index of the event in the log (0-based), when folding a log. */
    readonly eventIndex: number | null,
    readonly eventType: string,
    /** The machine's state, e.g. `acting`. */
    readonly state: string,
    /** What the state accepts instead. */
    readonly expected: string,
  ) {
    super(
      'EVENT_REJECTED',
      `round ${round}: ${eventIndex === null ? '' : `event ${eventIndex + 1} `}(${eventType}) is not accepted in state ${state}; the machine expects ${expected}`,
    );
  }
}

export function isEventRejected(err: unknown): err is EventRejectedError {
  return err instanceof EventRejectedError;
}
