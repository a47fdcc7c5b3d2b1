/** Errors of the failure analysis. */
import { EngiloopError } from '../../core/index.js';

export type AnalysisErrorCode =
  /** The log does not start with `episode.started` (empty, or not an episode). */
  | 'NOT_AN_EPISODE'
  /** The task the log recorded no longer validates with this build's schema. */
  | 'TASK_UNREADABLE'
  /** An id names neither a run nor an episode. */
  | 'UNKNOWN_ID';

/** A log or an id the analysis cannot work on. */
export class AnalysisError extends EngiloopError<AnalysisErrorCode> {
  override readonly name = 'AnalysisError';
}
