/**
 * The common error base. Every folder's `errors.ts` extends it with its own code union: a stable
 * `code` (typed, so `switch (err.code)` narrows and a misspelt code fails typecheck), whether a retry
 * can help, and the `cause` kept. Errors that enter the event log are converted with `toErrorData`.
 *
 * This folder imports nothing from the others, so every folder can depend on it without a cycle.
 *
 * @example
 * ```ts
 * type SandboxErrorCode = 'IMAGE_MISSING' | 'CONTAINER_GONE';
 * class SandboxError extends EngiloopError<SandboxErrorCode> {}
 * const e = new SandboxError('CONTAINER_GONE', 'container 1a2b is gone');
 * switch (e.code) { case 'IMAGE_MISSING': … case 'CONTAINER_GONE': … }
 * ```
 */
export class EngiloopError<C extends string = string> extends Error {
  override readonly name: string = 'EngiloopError';
  /** Stable machine-readable code, e.g. `IMAGE_MISSING`; one of the raising folder's code union. */
  readonly code: C;
  /** Whether trying the same operation again can help. */
  readonly retryable: boolean;

  constructor(code: C, message: string, opts: { cause?: unknown; retryable?: boolean } = {}) {
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

/**
 * True when `err` is an EngiloopError with the given code. Production code uses the raising folder's
 * predicates (`isContainerGone(err)`); this is what they are built from, and what tests use.
 */
export function hasCode<C extends string>(err: unknown, code: C): err is EngiloopError<C> {
  return err instanceof EngiloopError && err.code === code;
}

/** True when `err` is an EngiloopError that says a retry can help (`retryable`). */
export function isRetryable(err: unknown): err is EngiloopError {
  return err instanceof EngiloopError && err.retryable;
}
