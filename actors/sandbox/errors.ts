/**
 * Sandbox errors. Every failure of the sandbox layer is a `SandboxError` with one of its codes;
 * callers branch on the predicates, never on messages. A command that fails is not an error, nor is
 * a GUI action that fails (a click off the screen): those are results.
 */
import { EngiloopError, hasCode } from '../../core/index.js';

/** The stable codes a `SandboxError` carries: every code raised under `actors/sandbox/`. */
export type SandboxErrorCode =
  /** The Docker engine cannot be reached (the only retryable one). */
  | 'DOCKER_UNREACHABLE'
  /** The sandbox's image is not built here (engiloop never pulls). */
  | 'IMAGE_MISSING'
  /** The container vanished or stopped under a running episode. */
  | 'CONTAINER_GONE'
  /** Copying files in or out failed, or a path was refused. */
  | 'SANDBOX_IO'
  /** The virtual desktop of a GUI sandbox cannot be started or reached, or an app's window never came. */
  | 'GUI_UNAVAILABLE'
  /** Per-sandbox disk limits cannot be set up here (not root on the Docker host; see disk.ts). */
  | 'DISK_LIMIT_UNAVAILABLE';

/** A failure of the Docker sandbox layer (an infrastructure fault, never the agent's). */
export class SandboxError extends EngiloopError<SandboxErrorCode> {
  override readonly name: string = 'SandboxError';

  constructor(code: SandboxErrorCode, message: string, opts: { cause?: unknown } = {}) {
    // Only an unreachable engine can come back by itself; the others need a fix or a new sandbox.
    super(code, message, { cause: opts.cause, retryable: code === 'DOCKER_UNREACHABLE' });
  }
}

/**
 * The fix for a missing image, as a command a person can paste.
 * @example imageBuildHint('engiloop/cli:latest') // 'engiloop images build --only cli'
 */
function imageBuildHint(tag: string): string {
  const m = /^engiloop\/([^:@]+)/.exec(tag);
  return m
    ? `engiloop images build --only ${m[1]}`
    : `docker build or docker load ${tag} (engiloop never pulls)`;
}

/** Builds the `IMAGE_MISSING` error for `tag`, naming the build command. */
export function imageMissing(tag: string, cause?: unknown): SandboxError {
  return new SandboxError(
    'IMAGE_MISSING',
    `Image ${tag} is not present locally. Fix: ${imageBuildHint(tag)}`,
    {
      cause,
    },
  );
}

/** True when the Docker engine could not be reached (retryable). */
export function isDockerUnreachable(err: unknown): err is SandboxError {
  return hasCode(err, 'DOCKER_UNREACHABLE');
}

/** True when the image of a sandbox is not built. */
export function isImageMissing(err: unknown): err is SandboxError {
  return hasCode(err, 'IMAGE_MISSING');
}

/** True when the container vanished or stopped under a running episode. */
export function isContainerGone(err: unknown): err is SandboxError {
  return hasCode(err, 'CONTAINER_GONE');
}

/** True when copying files in or out of a sandbox failed (or a path was refused). */
export function isSandboxIo(err: unknown): err is SandboxError {
  return hasCode(err, 'SANDBOX_IO');
}

/** True when a GUI sandbox's desktop could not be started or reached (see `actors/sandbox/gui.ts`). */
export function isGuiUnavailable(err: unknown): err is SandboxError {
  return hasCode(err, 'GUI_UNAVAILABLE');
}
