/**
 * OpenAI-compatible Chat Completions with tool calls, through the official `openai` SDK. Works with
 * api.openai.com and with local servers (vLLM, Ollama, llama.cpp) through a base URL. The SDK does
 * no retries (`maxRetries: 0`); the agent's loop does them so each one is recorded.
 */
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { sdkLogger, type Fetch } from './transport.js';
import type { ProviderAdapter, Reply, ReplyCall, Transcript, Turn } from './types.js';

/** Settings of the OpenAI adapter. */
export interface OpenAiOptions {
  model: string;
  apiKey: string;
  /** Default: `https://api.openai.com/v1`. */
  baseURL?: string;
  fetch: Fetch;
  timeoutMs: number;
  /** Sent as `max_completion_tokens` when set; unset leaves the server's default. */
  maxOutputTokens?: number;
  temperature?: number;
}

function renderTurn(t: Turn): ChatCompletionMessageParam[] {
  if (t.role === 'assistant') {
    const calls = t.toolCalls.map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    }));
    return [{ role: 'assistant', content: t.text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
  }
  const tools: ChatCompletionMessageParam[] = t.toolResults.map((r) => ({
    role: 'tool',
    tool_call_id: r.id,
    content: r.text,
  }));
  // Plain string content unless there is an image: some local servers accept only strings.
  const hasImage = t.parts.some((p) => p.kind === 'image');
  const content: string | ChatCompletionContentPart[] = hasImage
    ? t.parts.map((p) =>
        p.kind === 'text'
          ? { type: 'text' as const, text: p.text }
          : {
              type: 'image_url' as const,
              image_url: { url: `data:${p.mediaType};base64,${p.data.toString('base64')}` },
            },
      )
    : t.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('\n\n');
  return [...tools, { role: 'user', content }];
}

/** The request body for a transcript. */
function openAiBody(
  t: Transcript,
  o: Omit<OpenAiOptions, 'apiKey' | 'fetch' | 'timeoutMs'>,
): ChatCompletionCreateParamsNonStreaming {
  return {
    model: o.model,
    messages: [{ role: 'system', content: t.system }, ...t.turns.flatMap(renderTurn)],
    tools: t.tools.map((s) => ({
      type: 'function',
      function: { name: s.name, description: s.description, parameters: s.parameters },
    })),
    tool_choice: 'auto',
    ...(o.maxOutputTokens === undefined ? {} : { max_completion_tokens: o.maxOutputTokens }),
    ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
  };
}

/** Reduces a completion to what a decision needs. */
function openAiReply(c: ChatCompletion): Reply {
  const choice = c.choices?.[0];
  const msg = choice?.message;
  const calls: ReplyCall[] = (msg?.tool_calls ?? []).map((tc) => {
    if (tc.type !== 'function')
      return { name: String(tc.type), argsText: '', parseError: 'not a function call' };
    const text = tc.function.arguments ?? '';
    try {
      return { name: tc.function.name, args: text.trim() === '' ? {} : (JSON.parse(text) as unknown) };
    } catch (e) {
      return { name: tc.function.name, argsText: text, parseError: (e as Error).message };
    }
  });
  const u = c.usage;
  return {
    calls,
    text: msg?.content ?? '',
    refusal: msg?.refusal ? msg.refusal : null,
    stopReason: choice?.finish_reason ?? null,
    usage: {
      input: u?.prompt_tokens ?? 0,
      output: u?.completion_tokens ?? 0,
      cached: u?.prompt_tokens_details?.cached_tokens ?? 0,
      cacheWrite: 0,
    },
  };
}

/** The adapter: one client per agent. */
export function openAiAdapter(o: OpenAiOptions): ProviderAdapter {
  const client = new OpenAI({
    apiKey: o.apiKey,
    // Explicit, so the SDK reads nothing from process.env behind the registry's back.
    baseURL: o.baseURL ?? 'https://api.openai.com/v1',
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: o.timeoutMs,
    fetch: o.fetch,
    logger: sdkLogger,
  });
  return {
    provider: 'openai',
    model: o.model,
    async complete(t, signal) {
      const res = await client.chat.completions.create(openAiBody(t, o), signal ? { signal } : {});
      return openAiReply(res);
    },
  };
}
