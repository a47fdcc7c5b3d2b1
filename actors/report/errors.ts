/** Errors of the report and the live view. */
import { EngiloopError } from '../../core/index.js';

export type ReportErrorCode =
  /** The pages were not built (`npm run build` makes dist/web). */
  | 'PAGES_MISSING'
  /** The output folder holds files that are not an engiloop report. */
  | 'OUT_NOT_EMPTY'
  /** The live view's port is taken or cannot be listened on. */
  | 'PORT_UNAVAILABLE';

/** A report that cannot be written or served. */
export class ReportError extends EngiloopError<ReportErrorCode> {
  override readonly name = 'ReportError';
}
