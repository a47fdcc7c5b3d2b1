/**
 * Message content for GenAI spans (only when `captureContent()`): the recorded provider exchange of
 * a call turned into the conventions' message shapes (gen-ai-input-messages.json,
 * gen-ai-output-messages.json). Images never go inline: each becomes a `uri` part naming its
 * object-store key, `sha256:<hex>` (the SHA-256 of the image bytes, as `observation.recorded`
 * stores them).
 */
import { createHash } from 'node:crypto';

/** The parts of a recorded exchange this module reads (actors/agents/llm `Exchange`). */
export interface ExchangeLike {
  request: { body: unknown };
  response: { status: number; body: unknown } | null;
}

type Part = Record<string, unknown>;
/** A message as the conventions shape it: a role and its parts. */
export interface OtelMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The last exchange that was answered with a 2xx: the one the call's result came from. */
export function answered<E extends ExchangeLike>(exchanges: readonly E[]): E | undefined {
  return exchanges.findLast((x) => !!x.response && x.response.status >= 200 && x.response.status < 300);
}

/** An image as a reference: base64 data becomes its SHA-256 (the object store's key). */
function imageRef(mediaType: string | undefined, data: string | undefined, url?: string): Part {
  const uri = data
    ? `sha256:${createHash('sha256').update(Buffer.from(data, 'base64')).digest('hex')}`
    : (url ?? 'unknown');
  return { type: 'uri', modality: 'image', ...(mediaType ? { mime_type: mediaType } : {}), uri };
}

function parseArgs(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One content block of either provider (OpenAI chat completions, Anthropic messages) as a part. */
function part(b: unknown): Part[] {
  if (typeof b === 'string') return b ? [{ type: 'text', content: b }] : [];
  if (!isObj(b)) return [];
  switch (b.type) {
    case 'text':
      return [{ type: 'text', content: str(b.text) ?? '' }];
    case 'image_url': {
      const url = isObj(b.image_url) ? str(b.image_url.url) : undefined;
      const m = url?.match(/^data:([^;,]+);base64,(.*)$/s);
      return [m ? imageRef(m[1], m[2]) : imageRef(undefined, undefined, url)];
    }
    case 'image': {
      const src = isObj(b.source) ? b.source : {};
      return [imageRef(str(src.media_type), str(src.data), str(src.url))];
    }
    case 'tool_use':
      return [
        { type: 'tool_call', id: str(b.id) ?? null, name: str(b.name) ?? '', arguments: b.input ?? null },
      ];
    case 'tool_result':
      return [{ type: 'tool_call_response', id: str(b.tool_use_id) ?? null, response: textOf(b.content) }];
    default:
      return [{ type: String(b.type ?? 'unknown') }];
  }
}

/** Text of a string or of a list of blocks (images dropped: they are referenced elsewhere). */
function textOf(c: unknown): string {
  return typeof c === 'string'
    ? c
    : list(c)
        .map((x) => (isObj(x) ? (str(x.text) ?? '') : ''))
        .join('');
}

const blocks = (c: unknown): Part[] => (typeof c === 'string' ? part(c) : list(c).flatMap(part));

/** An OpenAI assistant message's tool calls as parts. */
const toolCalls = (m: Obj): Part[] =>
  list(m.tool_calls).flatMap((c) =>
    isObj(c) && isObj(c.function)
      ? [
          {
            type: 'tool_call',
            id: str(c.id) ?? null,
            name: str(c.function.name) ?? '',
            arguments: parseArgs(c.function.arguments),
          },
        ]
      : [],
  );

/**
 * The request's messages (`gen_ai.input.messages`) and separate system instructions
 * (`gen_ai.system_instructions`, Anthropic's `system`; OpenAI's system message is part of the
 * history and stays a message, as the conventions say).
 */
export function inputOf(body: unknown): { messages: OtelMessage[]; system: Part[] } {
  const b = isObj(body) ? body : {};
  const messages = list(b.messages).flatMap((m): OtelMessage[] => {
    if (!isObj(m)) return [];
    const role = str(m.role) ?? 'user';
    if (role === 'tool')
      return [
        {
          role,
          parts: [
            { type: 'tool_call_response', id: str(m.tool_call_id) ?? null, response: textOf(m.content) },
          ],
        },
      ];
    return [{ role, parts: [...blocks(m.content), ...toolCalls(m)] }];
  });
  return { messages, system: b.system === undefined ? [] : blocks(b.system) };
}

/** The response's messages (`gen_ai.output.messages`), one per choice, with its finish reason. */
export function outputOf(body: unknown): OtelMessage[] {
  const b = isObj(body) ? body : {};
  if (Array.isArray(b.choices))
    return b.choices.flatMap((c): OtelMessage[] => {
      if (!isObj(c) || !isObj(c.message)) return [];
      const m = c.message;
      const parts = [...blocks(m.content), ...toolCalls(m)];
      if (str(m.refusal)) parts.push({ type: 'text', content: str(m.refusal) });
      return [
        {
          role: 'assistant',
          parts,
          ...(str(c.finish_reason) ? { finish_reason: str(c.finish_reason)! } : {}),
        },
      ];
    });
  if (Array.isArray(b.content))
    return [
      {
        role: 'assistant',
        parts: blocks(b.content),
        ...(str(b.stop_reason) ? { finish_reason: str(b.stop_reason)! } : {}),
      },
    ];
  return [];
}

/** The response's `model` and `id` (both providers name them so), when present. */
export function responseIds(body: unknown): { model?: string; id?: string } {
  if (!isObj(body)) return {};
  const model = str(body.model);
  const id = str(body.id);
  return { ...(model ? { model } : {}), ...(id ? { id } : {}) };
}
