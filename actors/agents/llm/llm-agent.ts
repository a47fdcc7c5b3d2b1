/**
 * An agent backed by a provider's model: each `decide()` sends one request built from the task,
 * the last N rounds and the current observation (and its images), retries transient provider
 * failures with backoff, and returns the raw decision (see `replyToDecision`).
 *
 * Errors `decide()` throws (all AgentError):
 * - `PROVIDER_UNAVAILABLE` (retryable): every attempt failed with 408/409/429/5xx, a timeout or a
 *   network error. The runner ends the episode as `infra_error`; it never counts as the agent failing.
 * - `PROVIDER_REJECTED`: a 4xx that retrying cannot fix (bad key, unknown model, context too long).
 * - `PROVIDER_ERROR`: the SDK failed before sending anything.
 * - `REPLAY_MISMATCH` / `REPLAY_EXHAUSTED`: only from `ReplayLlmAgent`.
 * An abort through `input.signal` rethrows the SDK's abort error.
 *
 * @example
 * ```ts
 * const agent = new LlmAgent({ provider: 'openai', model: 'gpt-4o', apiKey, onCall: (c) => log(c) });
 * const raw = await agent.decide(input); // { actions: [...] } | { done: true } | { fail } | InvalidOutput
 * agent.lastCall?.usage; // { input, output, cached, cacheWrite }
 * ```
 */
import { setTimeout as delay } from 'node:timers/promises';
import { AgentError } from '../errors.js';
import type { Agent, AgentInput } from '../types.js';
import { anthropicAdapter } from './anthropic.js';
import { replyToDecision } from './decision.js';
import { buildTranscript } from './history.js';
import { openAiAdapter } from './openai.js';
import type { Price, PriceTable } from './price-table.js';
import { costUsd, findPrice } from './pricing.js';
import { DEFAULT_PRICES } from './default-prices.js';
import { PROMPT_VERSION } from './prompt.js';
import { backoffMs, classify, DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { RecordingFetch, type Fetch } from './transport.js';
import type {
  LlmCall,
  LlmTotals,
  ProviderAdapter,
  ProviderName,
  Reply,
  RetryRecord,
  Usage,
} from './types.js';

/** Options of `LlmAgent`; only `provider`, `model` and `apiKey` are required. */
export interface LlmAgentOptions {
  provider: ProviderName;
  model: string;
  /** Sent as the provider expects; redacted from every recording. */
  apiKey: string;
  /** Provider base URL (a local OpenAI-compatible server, a proxy). Default: the provider's. */
  baseURL?: string;
  /** Spec recorded in the log. Default: `<provider>:<model>`. */
  name?: string;
  /** Past rounds sent with each request. Default: the task's `history_window` (15 unless set). */
  historyWindow?: number;
  /** Output token cap. Default: 8192 for Anthropic (required there), the server's default for OpenAI. */
  maxOutputTokens?: number;
  /** Sampling temperature. Default: unset (the provider's default; reasoning models reject others). */
  temperature?: number;
  /** Timeout of one request. Default: 300 000 ms. */
  requestTimeoutMs?: number;
  /** Default: `DEFAULT_RETRY` (6 attempts, 1 s doubling to 60 s, equal jitter). */
  retry?: Partial<RetryPolicy>;
  /** Default: `DEFAULT_PRICES` (the registry passes the table with `ENGILOOP_PRICES` applied). */
  prices?: PriceTable;
  /** HTTP transport under the SDK. Default: `globalThis.fetch`. */
  fetch?: Fetch;
  /** Backoff wait. Default: a timer that the input's signal cancels. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). Default: `Math.random`. */
  random?: () => number;
  /** Monotonic clock in ms for latencies. Default: `performance.now`. */
  now?: () => number;
  /** Called after every `decide()`, successful or not, with the call's telemetry. */
  onCall?: (call: LlmCall) => void;
  /** Called before each backoff wait, so a retry can be logged as it happens. */
  onRetry?: (retry: RetryRecord) => void;
}

const ZERO: Usage = { input: 0, output: 0, cached: 0, cacheWrite: 0 };

export class LlmAgent implements Agent {
  readonly name: string;
  readonly provider: ProviderName;
  readonly model: string;
  /** Telemetry of the latest `decide()`; set before it returns or throws. */
  lastCall: LlmCall | null = null;
  /** The configured provider key (none for `apiKey: 'none'`): redacted from recordings and events. */
  readonly secrets: readonly string[];
  private sums: LlmTotals = { calls: 0, usage: { ...ZERO }, costUsd: 0, latencyMs: 0, retries: 0 };
  private readonly o: LlmAgentOptions;
  private readonly rec: RecordingFetch;
  private readonly adapter: ProviderAdapter;
  private readonly retry: RetryPolicy;
  private readonly price: Price | null;
  private readonly now: () => number;

  constructor(o: LlmAgentOptions) {
    this.o = o;
    this.provider = o.provider;
    this.model = o.model;
    this.name = o.name ?? `${o.provider}:${o.model}`;
    this.now = o.now ?? (() => performance.now());
    this.retry = { ...DEFAULT_RETRY, ...o.retry };
    this.price = findPrice(o.prices ?? DEFAULT_PRICES, o.provider, o.model);
    this.secrets = o.apiKey === 'none' ? [] : [o.apiKey];
    this.rec = new RecordingFetch(
      o.fetch ?? ((i, init) => globalThis.fetch(i, init)),
      this.secrets,
      this.now,
    );
    const common = {
      model: o.model,
      apiKey: o.apiKey,
      fetch: this.rec.fetch,
      timeoutMs: o.requestTimeoutMs ?? 300_000,
      ...(o.baseURL ? { baseURL: o.baseURL } : {}),
      ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
    };
    this.adapter =
      o.provider === 'openai'
        ? openAiAdapter({ ...common, ...(o.maxOutputTokens ? { maxOutputTokens: o.maxOutputTokens } : {}) })
        : anthropicAdapter({ ...common, maxOutputTokens: o.maxOutputTokens ?? 8192 });
  }

  /** Sums over every `decide()` so far. */
  get totals(): LlmTotals {
    return structuredClone(this.sums);
  }

  async decide(input: AgentInput): Promise<unknown> {
    const t0 = this.now();
    const transcript = buildTranscript(input, this.o.historyWindow ?? input.task.history_window);
    const retries: RetryRecord[] = [];
    this.rec.take();
    let reply: Reply;
    try {
      reply = await this.attempts(transcript, input.signal, retries);
    } catch (e) {
      const code = e instanceof AgentError ? e.code : input.signal?.aborted ? 'ABORTED' : 'INTERNAL';
      this.finish(input.round, t0, null, retries, { code, message: String((e as Error).message ?? e) });
      throw e;
    }
    const raw = replyToDecision(reply, input.task.interface);
    this.finish(input.round, t0, reply, retries, null);
    return raw;
  }

  private async attempts(
    t: ReturnType<typeof buildTranscript>,
    signal: AbortSignal | undefined,
    retries: RetryRecord[],
  ): Promise<Reply> {
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      this.rec.attempt = attempt;
      try {
        return await this.adapter.complete(t, signal);
      } catch (err) {
        const fatal = this.rec.takeFatal();
        if (fatal) throw fatal;
        if (signal?.aborted) throw err;
        const last = this.rec.last();
        if (!last || last.attempt !== attempt)
          throw new AgentError('PROVIDER_ERROR', `${this.name}: ${(err as Error).message}`, { cause: err });
        const f = classify(last);
        if (!f.retryable)
          throw new AgentError('PROVIDER_REJECTED', `${this.name}: request rejected: ${f.message}`, {
            cause: err,
          });
        if (attempt >= this.retry.attempts)
          throw new AgentError(
            'PROVIDER_UNAVAILABLE',
            `${this.name}: provider unavailable after ${attempt} attempts (last: ${f.message})`,
            { cause: err, retryable: true },
          );
        const delayMs = backoffMs(attempt, this.retry, this.o.random ?? Math.random, f.retryAfterMs);
        const r: RetryRecord = {
          attempt,
          ...(f.status === undefined ? { code: f.code ?? 'NETWORK' } : { status: f.status }),
          message: f.message,
          delayMs,
        };
        retries.push(r);
        this.o.onRetry?.(r);
        const sleep = this.o.sleep ?? ((ms, s) => delay(ms, undefined, s ? { signal: s } : {}));
        // An abort during the wait surfaces as the signal's reason, as an abort anywhere else does.
        await sleep(delayMs, signal).catch((e: unknown) => {
          signal?.throwIfAborted();
          throw e;
        });
      }
    }
  }

  private finish(
    round: number,
    t0: number,
    reply: Reply | null,
    retries: RetryRecord[],
    error: LlmCall['error'],
  ): void {
    const usage = reply?.usage ?? { ...ZERO };
    const cost = this.price ? costUsd(this.price, usage) : null;
    const call: LlmCall = {
      provider: this.provider,
      model: this.model,
      round,
      usage,
      costUsd: cost,
      latencyMs: Math.round(this.now() - t0),
      retries,
      exchanges: this.rec.take(),
      stopReason: reply?.stopReason ?? null,
      promptVersion: PROMPT_VERSION,
      error,
    };
    this.lastCall = call;
    const s = this.sums;
    s.calls += 1;
    for (const k of Object.keys(ZERO) as (keyof Usage)[]) s.usage[k] += usage[k];
    s.costUsd = s.costUsd === null || cost === null ? null : s.costUsd + cost;
    s.latencyMs += call.latencyMs;
    s.retries += retries.length;
    this.o.onCall?.(call);
  }
}
