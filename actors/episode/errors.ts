import { EngiloopError } from '../../core/index.js';

export type EpisodeErrorCode =
  /** Another worker holds the episode now (its log moved on): this one stops without writing. */
  | 'LOG_CONFLICT'
  /** The log could not be written, retries included. */
  | 'LOG_WRITE_FAILED'
  /** The run was interrupted (its signal aborted): recorded as infra_error, retryable. */
  | 'ABORTED';

/** An error of the episode runner. */
export class EpisodeError extends EngiloopError<EpisodeErrorCode> {
  override readonly name: string = 'EpisodeError';
}

/** The episode's log could not be written: nothing may depend on an unrecorded event, so it stops. */
export class RecordingError extends EpisodeError {
  override readonly name = 'RecordingError';
  constructor(code: 'LOG_CONFLICT' | 'LOG_WRITE_FAILED', message: string, opts: { cause?: unknown } = {}) {
    super(code, message, opts);
  }
}

export function isRecordingError(err: unknown): err is RecordingError {
  return err instanceof RecordingError;
}
