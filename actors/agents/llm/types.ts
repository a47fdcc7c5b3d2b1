/**
 * What an LLM agent reports about each `decide()`: tokens, cost, latency, provider retries and the
 * redacted HTTP exchanges. Stored format: the lead records `LlmCall` in the event log, and
 * `ReplayLlmAgent` reads `Exchange[]` back — a change to these shapes needs a version bump there.
 */

/** Providers an agent spec can name: `openai:<model>`, `anthropic:<model>`. */
export type ProviderName = 'openai' | 'anthropic';

/** Token counts of one call. */
export interface Usage {
  /** All prompt tokens, cached ones included. */
  input: number;
  /** Completion tokens (reasoning tokens included when the provider counts them there). */
  output: number;
  /** Prompt tokens read from the provider's prompt cache (a subset of `input`). */
  cached: number;
  /** Prompt tokens written to the prompt cache (Anthropic; a subset of `input`; 0 for OpenAI). */
  cacheWrite: number;
}

/** One HTTP request to the provider and what came back, secrets redacted. */
export interface Exchange {
  /** Attempt number within its `decide()` call, from 1. */
  attempt: number;
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    /** JSON body as sent (parsed), or the text when it is not JSON. */
    body: unknown;
    /** SHA-256 (hex) of the exact body text sent, before redaction: replay checks it. */
    bodySha256: string;
  };
  /** `null` when no response arrived (network error, timeout). */
  response: { status: number; headers: Record<string, string>; body: unknown } | null;
  /** Why no response arrived: `code` is `TIMEOUT`, an errno such as `ECONNREFUSED`, or `NETWORK`. */
  error: { code: string; message: string } | null;
  latencyMs: number;
}

/** A failed attempt that was retried after `delayMs`. */
export interface RetryRecord {
  attempt: number;
  /** HTTP status, when a response arrived. */
  status?: number;
  /** Network error code, when none did. */
  code?: string;
  message: string;
  delayMs: number;
}

/** Telemetry of one `decide()` call; see `LlmAgent.lastCall`. */
export interface LlmCall {
  provider: ProviderName;
  model: string;
  round: number;
  /** Usage of the successful attempt (failed attempts report none); zeros when every attempt failed. */
  usage: Usage;
  /** From the price table; `null` when the model has no price there (e.g. a local model). */
  costUsd: number | null;
  /** Wall time of the whole call, retries and backoff included. */
  latencyMs: number;
  retries: RetryRecord[];
  exchanges: Exchange[];
  /** Provider's stop reason (`finish_reason` / `stop_reason`), when a response was read. */
  stopReason: string | null;
  /** `PROMPT_VERSION` of the prompt text the request was built with. */
  promptVersion: number;
  /** Set when the call threw (provider down, request rejected, replay mismatch). */
  error: { code: string; message: string } | null;
}

/** Sums over an episode, for the results table. */
export interface LlmTotals {
  calls: number;
  usage: Usage;
  /** `null` as soon as one call had no price. */
  costUsd: number | null;
  latencyMs: number;
  retries: number;
}

/** One image on its way to a provider. */
export interface ImagePart {
  kind: 'image';
  name: string;
  mediaType: string;
  data: Buffer;
  cache?: boolean;
}

/** A text part; `cache` marks a prompt-cache breakpoint (Anthropic; OpenAI caches on its own). */
export interface TextPart {
  kind: 'text';
  text: string;
  cache?: boolean;
}

/** A tool call, proposed by the model or rebuilt from a recorded decision. */
export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** Provider-neutral conversation turn; each provider module renders turns in its own format. */
export type Turn =
  | { role: 'user'; toolResults: { id: string; text: string }[]; parts: (TextPart | ImagePart)[] }
  | { role: 'assistant'; text: string | null; toolCalls: ToolCall[] };

/** A tool as offered to every model. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
}

/** Everything one request says, before a provider renders it. */
export interface Transcript {
  system: string;
  tools: ToolSpec[];
  turns: Turn[];
}

/** A tool call as the model returned it: parsed arguments, or the text that did not parse. */
export type ReplyCall =
  { name: string; args: unknown } | { name: string; argsText: string; parseError: string };

/** A provider response reduced to what a decision needs. */
export interface Reply {
  calls: ReplyCall[];
  /** Text the model wrote next to (or instead of) tool calls. */
  text: string;
  /** Refusal text, when the provider flagged the answer as a refusal. */
  refusal: string | null;
  stopReason: string | null;
  usage: Usage;
}

/** A provider module: renders a transcript, sends one request (no retries), reduces the answer. */
export interface ProviderAdapter {
  readonly provider: ProviderName;
  readonly model: string;
  complete(t: Transcript, signal?: AbortSignal): Promise<Reply>;
}
