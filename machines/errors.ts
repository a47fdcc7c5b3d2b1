/**
 * The common error base. Every folder's `errors.ts` extends it: a stable `code`, whether a retry can
 * help, and the `cause` kept. Errors that enter the event log are converted with `toErrorData`.
 */
export class EngiloopError extends Error {
  override readonly name: string = 'EngiloopError';
  /** Stable machine-readable code, e.g. `SANDBOX_IMAGE_MISSING`. */
  readonly code: string;
  /** Whether trying the same operation again can help. */
  readonly retryable: boolean;

  constructor(code: string, message: string, opts: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.retryable = opts.retryable ?? false;
  }
}

/** Error as data, for the event log. */
export function toErrorData(err: unknown): { code: string; message: string; retryable: boolean } {
  if (err instanceof EngiloopError) return { code: err.code, message: err.message, retryable: err.retryable };
  if (err instanceof Error) return { code: 'INTERNAL', message: err.message, retryable: false };
  return { code: 'INTERNAL', message: String(err), retryable: false };
}

/** True when `err` is an EngiloopError with the given code. */
export function hasCode(err: unknown, code: string): boolean {
  return err instanceof EngiloopError && err.code === code;
}
