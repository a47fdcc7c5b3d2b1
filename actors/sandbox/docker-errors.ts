/**
 * Maps what dockerode throws (socket errors, HTTP status errors) to `SandboxError`s.
 */
import type Docker from 'dockerode';
import { SandboxError, imageMissing, type SandboxErrorCode } from './errors.js';

/** Socket-level codes that mean "no engine answers there". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'EACCES',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'ETIMEDOUT',
]);

interface DockerishError {
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
}

/** Where `docker` talks to, for messages: `unix:///var/run/docker.sock` or `http://host:port`. */
export function describeEndpoint(docker: Docker): string {
  const m = docker.modem as { socketPath?: unknown; host?: string; port?: number; protocol?: string };
  if (typeof m.socketPath === 'string') return `unix://${m.socketPath}`;
  if (m.host) return `${m.protocol ?? 'http'}://${m.host}${m.port ? `:${m.port}` : ''}`;
  return 'the default Docker socket';
}

/** HTTP status of a dockerode error, if it has one. */
export function statusOf(err: unknown): number | undefined {
  const s = (err as DockerishError | null)?.statusCode;
  return typeof s === 'number' ? s : undefined;
}

/** True when `err` says the engine itself could not be reached. */
function isUnreachable(err: unknown): boolean {
  const c = (err as DockerishError | null)?.code;
  return typeof c === 'string' && UNREACHABLE_CODES.has(c);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface MapContext {
  docker: Docker;
  /** What was being done, for the message (`creating sandbox main`). */
  doing: string;
  /** Image involved; a 404 "No such image" becomes `IMAGE_MISSING` naming it. */
  image?: string;
  /** The call targets an existing container: 404/409 mean it is gone. */
  container?: string;
  /** Code for anything else. */
  fallback: SandboxErrorCode;
}

/**
 * Converts any error thrown while talking to Docker into a `SandboxError` (kept as is if it already
 * is one). The original error is kept as `cause`.
 */
export function toSandboxError(err: unknown, ctx: MapContext): SandboxError {
  if (err instanceof SandboxError) return err;
  if (isUnreachable(err)) {
    return new SandboxError(
      'DOCKER_UNREACHABLE',
      `Docker engine at ${describeEndpoint(ctx.docker)} is unreachable while ${ctx.doing}: ${messageOf(err)}`,
      { cause: err },
    );
  }
  const status = statusOf(err);
  if (status === 404 && ctx.image !== undefined && /no such image/i.test(messageOf(err))) {
    return imageMissing(ctx.image, err);
  }
  if (ctx.container !== undefined && (status === 404 || status === 409)) {
    return new SandboxError(
      'CONTAINER_GONE',
      `Container ${ctx.container.slice(0, 12)} is gone or stopped while ${ctx.doing}: ${messageOf(err)}`,
      { cause: err },
    );
  }
  return new SandboxError(ctx.fallback, `Docker failed while ${ctx.doing}: ${messageOf(err)}`, {
    cause: err,
  });
}
