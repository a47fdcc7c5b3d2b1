/**
 * One call of the LLM judge through the agents' provider layer: the same SDK adapters, recording
 * transport (redacted exchanges), retry classification and backoff, and price table as an agent's
 * `decide()`. The exchanges go to the object store and the call is described by an
 * `AgentCallRecord`, as an agent call is in `agent.decided`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { AgentError } from '../agents/index.js';
import {
  anthropicAdapter,
  backoffMs,
  classify,
  costUsd,
  DEFAULT_RETRY,
  findPrice,
  llmOptionsFromEnv,
  openAiAdapter,
  RecordingFetch,
  type Fetch,
  type Reply,
  type RetryPolicy,
  type Transcript,
} from '../agents/index.js';
import type { AgentCallRecord, BlobStore } from '../../streams/index.js';
import { JUDGE_PROMPT_VERSION } from './judge-prompt.js';

/** How to reach the judge's model; only `spec` and `blobs` are required. */
export interface JudgeCallOptions {
  /** `openai:<model>` or `anthropic:<model>`, configured as for agents (keys, base URLs, prices). */
  spec: string;
  /** Where the redacted exchanges are stored (their digest is the record's `exchanges`). */
  blobs: BlobStore;
  /** Environment for keys, base URLs and `ENGILOOP_PRICES`. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** HTTP transport under the SDK. Default: `globalThis.fetch`. */
  fetch?: Fetch;
  /** Output token cap. Default: 4096 for Anthropic (required there), the server's for OpenAI. */
  maxOutputTokens?: number;
  /** Timeout of one request. Default: 300 000 ms. */
  requestTimeoutMs?: number;
  /** Default: `DEFAULT_RETRY`. */
  retry?: Partial<RetryPolicy>;
  /** Backoff wait. Default: a timer the signal cancels. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). Default: `Math.random`. */
  random?: () => number;
  signal?: AbortSignal;
}

/**
 * Sends `t` once (retrying transient failures) and returns the reply and the call's record.
 *
 * @throws AgentError `AGENT_UNKNOWN` when `spec` names no LLM provider; `AGENT_KEY_MISSING` /
 *   `PRICES_INVALID` from the environment; `PROVIDER_REJECTED`, `PROVIDER_UNAVAILABLE` (retryable)
 *   or `PROVIDER_ERROR` as an agent's call would. An abort rethrows the signal's reason.
 */
export async function callJudge(
  t: Transcript,
  o: JudgeCallOptions,
): Promise<{ reply: Reply; call: AgentCallRecord }> {
  const llm = llmOptionsFromEnv(o.spec, o.env ?? process.env);
  if (!llm)
    throw new AgentError(
      'AGENT_UNKNOWN',
      `judge "${o.spec}" is not a model: use openai:<model> or anthropic:<model>`,
    );
  const now = () => performance.now();
  const secrets = llm.apiKey === 'none' ? [] : [llm.apiKey];
  const rec = new RecordingFetch(o.fetch ?? ((i, init) => globalThis.fetch(i, init)), secrets, now);
  const common = {
    model: llm.model,
    apiKey: llm.apiKey,
    fetch: rec.fetch,
    timeoutMs: o.requestTimeoutMs ?? 300_000,
    ...(llm.baseURL ? { baseURL: llm.baseURL } : {}),
  };
  const adapter =
    llm.provider === 'openai'
      ? openAiAdapter({ ...common, ...(o.maxOutputTokens ? { maxOutputTokens: o.maxOutputTokens } : {}) })
      : anthropicAdapter({ ...common, maxOutputTokens: o.maxOutputTokens ?? 4096 });
  const policy = { ...DEFAULT_RETRY, ...o.retry };
  const sleep = o.sleep ?? ((ms, s) => delay(ms, undefined, s ? { signal: s } : {}));
  const t0 = now();
  const retries: number[] = [];
  const send = async (): Promise<Reply> => {
    for (let attempt = 1; ; attempt++) {
      o.signal?.throwIfAborted();
      rec.attempt = attempt;
      try {
        return await adapter.complete(t, o.signal);
      } catch (err) {
        const fatal = rec.takeFatal();
        if (fatal) throw fatal;
        if (o.signal?.aborted) throw err;
        const last = rec.last();
        if (!last || last.attempt !== attempt)
          throw new AgentError('PROVIDER_ERROR', `judge ${o.spec}: ${(err as Error).message}`, {
            cause: err,
          });
        const f = classify(last);
        if (!f.retryable)
          throw new AgentError('PROVIDER_REJECTED', `judge ${o.spec}: request rejected: ${f.message}`, {
            cause: err,
          });
        if (attempt >= policy.attempts)
          throw new AgentError(
            'PROVIDER_UNAVAILABLE',
            `judge ${o.spec}: provider unavailable after ${attempt} attempts (last: ${f.message})`,
            { cause: err, retryable: true },
          );
        const ms = backoffMs(attempt, policy, o.random ?? Math.random, f.retryAfterMs);
        retries.push(ms);
        await sleep(ms, o.signal);
      }
    }
  };
  const reply = await send();
  const latencyMs = Math.round(now() - t0);
  const price = llm.prices ? findPrice(llm.prices, llm.provider, llm.model) : null;
  const call: AgentCallRecord = {
    provider: llm.provider,
    model: llm.model,
    usage: reply.usage,
    costUsd: price ? costUsd(price, reply.usage) : null,
    latencyMs,
    retries: retries.length,
    stopReason: reply.stopReason,
    promptVersion: JUDGE_PROMPT_VERSION,
    exchanges: await o.blobs.put(Buffer.from(JSON.stringify(rec.take()))),
  };
  return { reply, call };
}
