/**
 * Anthropic Messages with tool use, through the official `@anthropic-ai/sdk`. The SDK does no
 * retries (`maxRetries: 0`); the agent's loop does them so each one is recorded. Two prompt-cache
 * breakpoints are set: after the task text, and at the end of the current observation.
 */
import Anthropic from '@anthropic-ai/sdk';
import { sdkLogger, type Fetch } from './transport.js';
import type { ProviderAdapter, Reply, ReplyCall, Transcript, Turn } from './types.js';

/** Settings of the Anthropic adapter. */
export interface AnthropicOptions {
  model: string;
  apiKey: string;
  /** Default: `https://api.anthropic.com`. */
  baseURL?: string;
  fetch: Fetch;
  timeoutMs: number;
  /** `max_tokens`, which the Messages API requires. */
  maxOutputTokens: number;
  temperature?: number;
}

type ImageMedia = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
const CACHE = { cache_control: { type: 'ephemeral' as const } };

function renderTurn(t: Turn): Anthropic.MessageParam {
  if (t.role === 'assistant') {
    const content: Anthropic.ContentBlockParam[] = [
      ...(t.text ? [{ type: 'text' as const, text: t.text }] : []),
      ...t.toolCalls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.args })),
    ];
    return { role: 'assistant', content };
  }
  // tool_result blocks must come first in the user message that follows the tool calls.
  const content: Anthropic.ContentBlockParam[] = [
    ...t.toolResults.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.text })),
    ...t.parts.map((p): Anthropic.ContentBlockParam =>
      p.kind === 'text'
        ? { type: 'text', text: p.text, ...(p.cache ? CACHE : {}) }
        : {
            type: 'image',
            source: {
              type: 'base64',
              media_type: p.mediaType as ImageMedia,
              data: p.data.toString('base64'),
            },
            ...(p.cache ? CACHE : {}),
          },
    ),
  ];
  return { role: 'user', content };
}

/** The request body for a transcript. */
function anthropicBody(
  t: Transcript,
  o: Omit<AnthropicOptions, 'apiKey' | 'fetch' | 'timeoutMs'>,
): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: o.model,
    max_tokens: o.maxOutputTokens,
    system: t.system,
    messages: t.turns.map(renderTurn),
    tools: t.tools.map((s) => ({
      name: s.name,
      description: s.description,
      input_schema: s.parameters as Anthropic.Tool.InputSchema,
    })),
    tool_choice: { type: 'auto' },
    ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
  };
}

/** Reduces a message to what a decision needs. */
function anthropicReply(m: Anthropic.Message): Reply {
  const blocks = m.content ?? [];
  const calls: ReplyCall[] = blocks
    .filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')
    .map((b) => ({ name: b.name, args: b.input }));
  const text = blocks
    .filter((b): b is Anthropic.TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
  const u = m.usage;
  const cached = u?.cache_read_input_tokens ?? 0;
  const cacheWrite = u?.cache_creation_input_tokens ?? 0;
  const refused = m.stop_reason === 'refusal';
  return {
    calls,
    text,
    refusal: refused
      ? m.stop_details?.explanation ||
        text ||
        `declined (stop_reason "refusal"${m.stop_details?.category ? `, ${m.stop_details.category}` : ''})`
      : null,
    stopReason: m.stop_reason ?? null,
    usage: {
      input: (u?.input_tokens ?? 0) + cached + cacheWrite,
      output: u?.output_tokens ?? 0,
      cached,
      cacheWrite,
    },
  };
}

/** The adapter: one client per agent. */
export function anthropicAdapter(o: AnthropicOptions): ProviderAdapter {
  const client = new Anthropic({
    apiKey: o.apiKey,
    // Explicit, so the SDK reads nothing from process.env or config files behind the registry's back.
    baseURL: o.baseURL ?? 'https://api.anthropic.com',
    maxRetries: 0,
    timeout: o.timeoutMs,
    fetch: o.fetch,
    logger: sdkLogger,
  });
  return {
    provider: 'anthropic',
    model: o.model,
    async complete(t, signal) {
      const res = await client.messages.create(anthropicBody(t, o), signal ? { signal } : {});
      return anthropicReply(res);
    },
  };
}
