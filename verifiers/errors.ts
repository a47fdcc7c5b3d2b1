/**
 * Errors of the verifiers folder. A verifier never lets these reach the caller of `verifyCriterion`:
 * they are turned into failing verdicts. They exist so that the inner steps (parsing, lookup, time
 * limits) can say precisely what went wrong, with a stable code.
 */
import { EngiloopError } from '../core/index.js';

/** Every code raised under `verifiers/`. */
export type VerifierErrorCode =
  /** No verifier is registered under the name a criterion uses. */
  | 'VERIFIER_UNKNOWN'
  /** A verifier is registered twice under the same name. */
  | 'VERIFIER_DUPLICATE'
  /** A verifier ran past its time limit. */
  | 'VERIFIER_TIMEOUT'
  /** A criterion's params do not match the verifier's schema. */
  | 'VERIFIER_PARAMS'
  /** An artifact could not be read as what it claims to be (corrupt, truncated, empty). */
  | 'ARTIFACT_INVALID';

/** Base class of every error raised under `verifiers/`. */
export class VerifierError extends EngiloopError<VerifierErrorCode> {
  override readonly name: string = 'VerifierError';

  constructor(code: VerifierErrorCode, message: string, opts: { cause?: unknown; retryable?: boolean } = {}) {
    super(code, message, opts);
  }
}

/** A criterion names a verifier that is not registered; the message lists the known names. */
export class UnknownVerifierError extends VerifierError {
  override readonly name = 'UnknownVerifierError';
  constructor(
    readonly verifier: string,
    known: readonly string[],
  ) {
    super('VERIFIER_UNKNOWN', `unknown verifier "${verifier}" (known: ${known.join(', ')})`);
  }
}

/** A verifier (or one of its steps) ran past its time limit. Retrying may help on a loaded host. */
export class VerifierTimeoutError extends VerifierError {
  override readonly name = 'VerifierTimeoutError';
  constructor(
    what: string,
    readonly timeoutMs: number,
  ) {
    super('VERIFIER_TIMEOUT', `${what} timed out after ${formatMs(timeoutMs)}`, { retryable: true });
  }
}

/** An artifact is corrupt, truncated, empty or not of the expected kind. */
export class ArtifactInvalidError extends VerifierError {
  override readonly name = 'ArtifactInvalidError';
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('ARTIFACT_INVALID', message, opts);
  }
}

/** True when `err` is an `UnknownVerifierError`. */
export function isUnknownVerifier(err: unknown): err is UnknownVerifierError {
  return err instanceof UnknownVerifierError;
}

/** True when `err` is a `VerifierTimeoutError`. */
export function isVerifierTimeout(err: unknown): err is VerifierTimeoutError {
  return err instanceof VerifierTimeoutError;
}

/** True when `err` is an `ArtifactInvalidError`. */
export function isArtifactInvalid(err: unknown): err is ArtifactInvalidError {
  return err instanceof ArtifactInvalidError;
}

/** `1500` → `"1.5 s"`, `60000` → `"60 s"`, `250` → `"250 ms"`. */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}
