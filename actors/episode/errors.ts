import { EngiloopError } from '../../machines/errors.js';

/** The episode's log could not be written: nothing may depend on an unrecorded event, so it stops. */
export class RecordingError extends EngiloopError {
  override readonly name = 'RecordingError';
}
