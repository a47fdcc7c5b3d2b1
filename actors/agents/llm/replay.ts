/**
 * Re-drives a recorded LLM episode with no network: an `LlmAgent` whose HTTP transport answers
 * from recorded exchanges, in order. Each request is rebuilt from the agent input exactly as live,
 * and its body hash must equal the recorded one — so a changed prompt, tool set, history rendering
 * or model option is reported (`REPLAY_MISMATCH`) instead of silently replaying other answers.
 * Recorded failures (429, 5xx, timeouts) are replayed too, so retries happen as they did, without
 * waiting.
 *
 * @example
 * ```ts
 * const exchanges = calls.flatMap((c) => c.exchanges); // LlmCall records from the event log
 * const agent = new ReplayLlmAgent({ provider: 'openai', model: 'gpt-4o', exchanges });
 * ```
 */
import { AgentError } from '../errors.js';
import { LlmAgent, type LlmAgentOptions } from './llm-agent.js';
import { bodySha256, type Fetch } from './transport.js';
import type { Exchange } from './types.js';

/** Options of `ReplayLlmAgent`: those of the recorded agent, minus credentials and transport. */
export type ReplayLlmAgentOptions = Omit<LlmAgentOptions, 'apiKey' | 'fetch' | 'sleep'> & {
  /** Every exchange of the recorded episode, in order. */
  exchanges: readonly Exchange[];
};

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

/** Path and values of the first difference between two JSON values, for the mismatch message. */
function firstDifference(a: unknown, b: unknown, path = ''): string | null {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null))
    return `${path || '(body)'}: ${short(a)} vs recorded ${short(b)}`;
  if (typeof a === 'object' && a !== null) {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
      const d = firstDifference(ao[k], bo[k], Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : `${path || '(body)'}: ${short(a)} vs recorded ${short(b)}`;
}

/** A fetch that answers from `exchanges` in order, checking each request body's hash. */
function replayFetch(exchanges: readonly Exchange[]): { fetch: Fetch; used: () => number } {
  let next = 0;
  const fetch: Fetch = async (_input, init) => {
    const n = next++;
    const e = exchanges[n];
    if (!e)
      throw new AgentError(
        'REPLAY_EXHAUSTED',
        `replay: request ${n + 1} has no recorded exchange (the recording has ${exchanges.length})`,
      );
    const text = typeof init?.body === 'string' ? init.body : '';
    if (bodySha256(text) !== e.request.bodySha256) {
      let where: string | null;
      try {
        where = firstDifference(JSON.parse(text), e.request.body);
      } catch {
        where = null;
      }
      throw new AgentError(
        'REPLAY_MISMATCH',
        `replay: request ${n + 1} (attempt ${e.attempt}) differs from the recording (body sha256 ${bodySha256(text).slice(0, 12)}, recorded ${e.request.bodySha256.slice(0, 12)})${where ? `; first difference at ${where}` : ''}`,
      );
    }
    if (!e.response)
      throw Object.assign(new Error(`replayed: ${e.error?.message ?? 'no response'}`), {
        code: e.error?.code ?? 'NETWORK',
      });
    const { status, headers, body } = e.response;
    const payload = [101, 204, 205, 304].includes(status)
      ? null
      : typeof body === 'string'
        ? body
        : JSON.stringify(body);
    return new Response(payload, { status, headers });
  };
  return { fetch, used: () => next };
}

/** An `LlmAgent` that replays a recording; `decide()` behaves as it did live, offline. */
export class ReplayLlmAgent extends LlmAgent {
  private readonly replay: { used: () => number; total: number };

  constructor(o: ReplayLlmAgentOptions) {
    const { exchanges, ...rest } = o;
    const rf = replayFetch(exchanges);
    super({ ...rest, apiKey: 'none', fetch: rf.fetch, sleep: () => Promise.resolve() });
    this.replay = { used: rf.used, total: exchanges.length };
  }

  /** Recorded exchanges not replayed yet (0 once the whole episode has been re-driven). */
  get remaining(): number {
    return this.replay.total - this.replay.used();
  }
}
