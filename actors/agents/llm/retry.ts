/**
 * Provider retry policy: which failed attempts are worth repeating, and how long to wait. Pure; the
 * agent's loop does the waiting through an injected `sleep`.
 */
import type { Exchange } from './types.js';

/** Retry settings; defaults in `DEFAULT_RETRY`. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Delay before the first retry; doubles each time. */
  baseDelayMs: number;
  /** Cap on one delay, `retry-after` included. */
  maxDelayMs: number;
}

/** 6 attempts, 1 s doubling to at most 60 s: about two minutes of outage before giving up. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** What went wrong with one attempt, read from its exchange. */
export interface AttemptFailure {
  retryable: boolean;
  status?: number;
  code?: string;
  message: string;
  /** The provider's `retry-after-ms` / `retry-after` (seconds), when given. */
  retryAfterMs?: number;
}

/** Statuses the official SDKs retry too: timeouts, conflicts, rate limits, server errors. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function providerMessage(body: unknown): string | null {
  const e = (body as { error?: { message?: unknown } } | null)?.error;
  return typeof e?.message === 'string' ? e.message : null;
}

function retryAfter(h: Record<string, string>): number | undefined {
  const ms = Number(h['retry-after-ms']);
  if (h['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const s = Number(h['retry-after']);
  if (h['retry-after'] !== undefined && Number.isFinite(s) && s >= 0) return s * 1000;
  return undefined;
}

/** Classifies a failed attempt from its exchange. */
export function classify(ex: Exchange): AttemptFailure {
  if (ex.response === null)
    return {
      retryable: true,
      code: ex.error?.code ?? 'NETWORK',
      message: ex.error?.message ?? 'no response',
    };
  const { status, headers, body } = ex.response;
  const ra = retryAfter(headers);
  if (status >= 200 && status < 300)
    // A 2xx the SDK could not read (a proxy hiccup, a truncated body): worth another try.
    return { retryable: true, status, message: `unreadable ${status} response` };
  const text = typeof body === 'string' ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300);
  const message = `HTTP ${status}: ${providerMessage(body) ?? text}`;
  return {
    retryable: isRetryableStatus(status),
    status,
    message,
    ...(ra === undefined ? {} : { retryAfterMs: ra }),
  };
}

/**
 * Delay before retry number `attempt` (1 = after the first failure): exponential with "equal
 * jitter" (half fixed, half random), at least the provider's `retry-after`, at most `maxDelayMs`.
 */
export function backoffMs(
  attempt: number,
  p: RetryPolicy,
  random: () => number,
  retryAfterMs?: number,
): number {
  const exp = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exp / 2 + (random() * exp) / 2;
  return Math.round(Math.min(p.maxDelayMs, Math.max(jittered, retryAfterMs ?? 0)));
}
