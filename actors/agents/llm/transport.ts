/**
 * The HTTP layer under the SDKs: a `fetch` that records every request and response (redacted) as
 * an `Exchange`. The retry loop reads the last exchange to decide whether to retry, so retry
 * decisions rest on what went over the wire, not on SDK error classes.
 */
import { createHash } from 'node:crypto';
import { AgentError } from '../errors.js';
import { redactHeaders, redactJson, redactText } from './redact.js';
import type { Exchange } from './types.js';

/** The fetch signature both SDKs accept. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** SHA-256 (hex) of a request body text. */
export function bodySha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function networkCode(err: unknown): string {
  const e = err as { name?: string; code?: unknown; cause?: { code?: unknown } };
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return 'TIMEOUT';
  if (typeof e.cause?.code === 'string') return e.cause.code;
  if (typeof e.code === 'string') return e.code;
  return 'NETWORK';
}

const NO_BODY = new Set([101, 204, 205, 304]);

/** Wraps `inner` so each call is recorded; `take()` hands over the exchanges of one decide. */
export class RecordingFetch {
  /** Attempt number stamped on the next exchanges; the retry loop sets it. */
  attempt = 1;
  private exchanges: Exchange[] = [];
  private fatal: AgentError | null = null;

  constructor(
    private readonly inner: Fetch,
    private readonly secrets: readonly string[],
    private readonly now: () => number,
  ) {}

  /** The fetch to give the SDK. */
  readonly fetch: Fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const text = typeof init?.body === 'string' ? init.body : init?.body == null ? '' : '[non-text body]';
    const ex: Exchange = {
      attempt: this.attempt,
      request: {
        method: init?.method ?? 'GET',
        url: redactText(url, this.secrets),
        headers: redactHeaders(init?.headers as Record<string, string> | undefined, this.secrets),
        body: redactJson(parseBody(text), this.secrets),
        bodySha256: bodySha256(text),
      },
      response: null,
      error: null,
      latencyMs: 0,
    };
    this.exchanges.push(ex);
    const t0 = this.now();
    try {
      const res = await this.inner(input, init);
      const body = await res.text();
      ex.latencyMs = Math.round(this.now() - t0);
      const headers = redactHeaders(res.headers, this.secrets);
      ex.response = { status: res.status, headers, body: redactJson(parseBody(body), this.secrets) };
      return new Response(NO_BODY.has(res.status) ? null : body, {
        status: res.status,
        statusText: res.statusText,
        headers,
      });
    } catch (err) {
      ex.latencyMs = Math.round(this.now() - t0);
      // Our own errors (a replay mismatch) must not be retried like a network failure.
      if (err instanceof AgentError) this.fatal = err;
      ex.error = {
        code: networkCode(err),
        message: redactText((err as Error).message ?? String(err), this.secrets),
      };
      throw err;
    }
  };

  /** The most recent exchange, if any. */
  last(): Exchange | undefined {
    return this.exchanges[this.exchanges.length - 1];
  }

  /** A non-retryable error raised below the SDK, once. */
  takeFatal(): AgentError | null {
    const f = this.fatal;
    this.fatal = null;
    return f;
  }

  /** Exchanges since the last `take()`. */
  take(): Exchange[] {
    const out = this.exchanges;
    this.exchanges = [];
    return out;
  }
}

const warned = new Set<string>();

/**
 * Logger handed to both SDKs: errors and warnings to stderr, each distinct warning once per
 * process (the Anthropic SDK warns about a deprecated model on every request), nothing else.
 */
export const sdkLogger = {
  error: (msg: string, ...rest: unknown[]) => console.error(msg, ...rest),
  warn: (msg: string, ...rest: unknown[]) => {
    if (warned.has(msg)) return;
    warned.add(msg);
    console.error(msg, ...rest);
  },
  info: () => undefined,
  debug: () => undefined,
};
