/**
 * The episode span and one `chat {model}` span per provider call. Without the opt-in
 * (`genAiLatest()` false) the episode span keeps engiloop's earlier shape (`episode`) and no chat
 * span is made. With it, following the GenAI conventions (semantic-conventions
 * docs/gen-ai/gen-ai-agent-spans.md "Invoke agent span", docs/gen-ai/gen-ai-spans.md "Inference"):
 *
 * - `invoke_agent {agent}` (INTERNAL: the agent runs in this process): `gen_ai.operation.name`
 *   `invoke_agent`, `gen_ai.provider.name` (the agent's provider, `engiloop` for agents that call
 *   none), `gen_ai.agent.name` (the agent spec), `gen_ai.conversation.id` (the episode id),
 *   `gen_ai.request.model` when the agent has one; at the end the episode's `gen_ai.usage.*` and
 *   `error.type` (the error code) for an infra_error.
 * - `chat {model}` (CLIENT), child of `agent.decide`, covering the call with its retries:
 *   provider, request and response model, response id, `gen_ai.usage.input_tokens` (cached ones
 *   included), `output_tokens`, `cache_read.input_tokens`, `cache_creation.input_tokens`,
 *   `gen_ai.response.finish_reasons`, `server.address`/`server.port`, `error.type` (the agent's
 *   error code); engiloop's `engiloop.round`, `engiloop.retries`, `engiloop.cost_usd`,
 *   `engiloop.prompt_version` and `engiloop.exchanges` (object-store key of the recorded exchanges).
 *   Message content only with `captureContent()`.
 */
import { SpanKind, type Attributes, type Span } from '@opentelemetry/api';
import { answered, inputOf, outputOf, responseIds, type ExchangeLike } from './content.js';
import { captureContent, endSpan, genAiLatest, startSpan } from './spans.js';

/** The agent as the episode span names it; `provider` and `model` are read when it has them. */
export interface AgentLike {
  readonly name: string;
}

const field = (o: object, k: string): string | undefined => {
  const v = (o as Record<string, unknown>)[k];
  return typeof v === 'string' && v ? v : undefined;
};

/** Starts the span of one episode: `invoke_agent {agent}` with the opt-in, `episode` without. */
export function startEpisodeSpan(taskId: string, episodeId: string, agent: AgentLike): Span {
  const own = { 'engiloop.task': taskId, 'engiloop.episode': episodeId, 'engiloop.agent': agent.name };
  if (!genAiLatest()) return startSpan('episode', own);
  const model = field(agent, 'model');
  return startSpan(
    `invoke_agent ${agent.name}`,
    {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': field(agent, 'provider') ?? 'engiloop',
      'gen_ai.agent.name': agent.name,
      'gen_ai.conversation.id': episodeId,
      ...(model ? { 'gen_ai.request.model': model } : {}),
      ...own,
    },
    undefined,
    { kind: SpanKind.INTERNAL },
  );
}

/** What `endEpisodeSpan` records of the result. */
export interface EpisodeOutcome {
  status: string;
  rounds: number;
  error?: { code: string } | null;
  usage?: { input: number; output: number; cached: number } | null;
}

/** Records the outcome on the episode span and ends it (an error when the log could not be written). */
export function endEpisodeSpan(span: Span, r: EpisodeOutcome, err?: unknown): void {
  span.setAttributes({ 'engiloop.status': r.status, 'engiloop.rounds': r.rounds });
  if (genAiLatest() && span.isRecording()) {
    if (r.usage)
      span.setAttributes({
        'gen_ai.usage.input_tokens': r.usage.input,
        'gen_ai.usage.output_tokens': r.usage.output,
        'gen_ai.usage.cache_read.input_tokens': r.usage.cached,
      });
    if (r.status === 'infra_error') span.setAttribute('error.type', r.error?.code ?? '_OTHER');
  }
  endSpan(span, err);
}

/** One provider call as the agent reported it (structurally `LlmCall` of actors/agents). */
export interface ChatCall {
  provider: string;
  model: string;
  usage: { input: number; output: number; cached: number; cacheWrite: number };
  costUsd: number | null;
  retries: readonly unknown[];
  stopReason: string | null;
  promptVersion: number;
  error: { code: string; message: string } | null;
  exchanges: readonly (ExchangeLike & { request: { url: string } })[];
}

/** Where and when the call happened. Times are ms since the epoch. */
export interface ChatContext {
  conversationId: string;
  round: number;
  startMs: number;
  endMs: number;
  /** Object-store key of the stored exchanges, when stored. */
  exchanges?: string;
}

function server(url: string | undefined): Attributes {
  if (!url) return {};
  try {
    const u = new URL(url);
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    return { 'server.address': u.hostname, 'server.port': port };
  } catch {
    return {};
  }
}

/** Records `call` as a `chat {model}` span under `parent` (the decision's span); opt-in only. */
export function recordChat(parent: Span, call: ChatCall, o: ChatContext): void {
  if (!genAiLatest() || !parent.isRecording()) return;
  const got = answered(call.exchanges);
  const ids = responseIds(got?.response?.body);
  const span = startSpan(
    `chat ${call.model}`,
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': call.provider,
      'gen_ai.request.model': call.model,
      'gen_ai.conversation.id': o.conversationId,
      ...server((got ?? call.exchanges.at(-1))?.request.url),
    },
    parent,
    { kind: SpanKind.CLIENT, startTime: o.startMs },
  );
  span.setAttributes({
    ...(ids.model ? { 'gen_ai.response.model': ids.model } : {}),
    ...(ids.id ? { 'gen_ai.response.id': ids.id } : {}),
    'gen_ai.usage.input_tokens': call.usage.input,
    'gen_ai.usage.output_tokens': call.usage.output,
    'gen_ai.usage.cache_read.input_tokens': call.usage.cached,
    'gen_ai.usage.cache_creation.input_tokens': call.usage.cacheWrite,
    ...(call.stopReason ? { 'gen_ai.response.finish_reasons': [call.stopReason] } : {}),
    'engiloop.round': o.round,
    'engiloop.retries': call.retries.length,
    'engiloop.prompt_version': call.promptVersion,
    ...(call.costUsd === null ? {} : { 'engiloop.cost_usd': call.costUsd }),
    ...(o.exchanges ? { 'engiloop.exchanges': o.exchanges } : {}),
  });
  if (captureContent() && got) {
    const input = inputOf(got.request.body);
    span.setAttributes({
      'gen_ai.input.messages': JSON.stringify(input.messages),
      'gen_ai.output.messages': JSON.stringify(outputOf(got.response?.body)),
      ...(input.system.length ? { 'gen_ai.system_instructions': JSON.stringify(input.system) } : {}),
    });
  }
  if (call.error) span.setAttribute('error.type', call.error.code);
  endSpan(span, call.error ? new Error(call.error.message) : undefined, o.endMs);
}
