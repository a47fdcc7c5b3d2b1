/**
 * The MCP stdio server transport, with a size limit per message that refuses instead of closing.
 * The SDK's `StdioServerTransport` buffers a line without bound up to 10 MiB and past it closes
 * itself: the client's call and every later one hang until it disconnects. This one reads
 * newline-delimited JSON-RPC with memory bounded by the limit: the bytes of a longer line are
 * dropped as they arrive (keeping only its first and last few hundred bytes, for the request id),
 * and at its end the request gets a JSON-RPC error naming the limit. Malformed lines get a parse
 * or invalid-request error instead of no answer. The session goes on in every case.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MESSAGE_BYTES } from './limits.js';

/** Options of {@link BoundedStdioServerTransport}. */
export interface BoundedStdioOptions {
  /** Largest message in bytes, newline excluded. Default {@link MAX_MESSAGE_BYTES} (1 MiB). */
  maxMessageBytes?: number;
}

/** Bytes kept from each end of a refused message, to find its `id` and `method`. */
const KEEP = 512;
type RequestId = string | number;

// The id right after `{` (and maybe "jsonrpc"/"method"), or as the last member: the SDK's client
// writes `{"method":…,"params":…,"jsonrpc":"2.0","id":7}`. Anywhere else it is not searched for.
const ID = String.raw`"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,128}")`;
const ID_AT_HEAD = new RegExp(
  String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,64}"\s*,)*\s*${ID}\s*[,}]`,
);
const ID_AT_TAIL = new RegExp(String.raw`[{,]\s*${ID}\s*\}\s*$`);
// For the error text only: what the refused message was, when its first bytes say.
const METHOD = /"method"\s*:\s*"([\w/.-]{1,64})"/;
const TOOL = /"params"\s*:\s*\{\s*"name"\s*:\s*"([\w.-]{1,64})"/;

/** The request id of a message from its two ends, when it can be found; else undefined. */
export function findRequestId(head: string, tail: string): RequestId | undefined {
  const m = ID_AT_HEAD.exec(head) ?? ID_AT_TAIL.exec(tail);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]!) as RequestId;
  } catch {
    return undefined;
  }
}

/**
 * Serves MCP on `input`/`output` (default the process's stdin/stdout), one JSON-RPC message per
 * line. Errors it answers itself: `-32600` for a message over the limit (`data: { bytes, limit }`)
 * or not a JSON-RPC message, `-32700` for a line that is not JSON. Each is also reported through
 * `onerror`. Only `close()` or the end of `input` ends the session.
 */
export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #max: number;
  #parts: Buffer[] = [];
  #size = 0;
  /** A line over the limit being skipped: its size so far and its two ends. */
  #over: { bytes: number; head: Buffer; tail: Buffer } | null = null;
  #started = false;

  constructor(
    input: Readable = process.stdin,
    output: Writable = process.stdout,
    o: BoundedStdioOptions = {},
  ) {
    this.#input = input;
    this.#output = output;
    this.#max = o.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('BoundedStdioServerTransport already started');
    this.#started = true;
    this.#input.on('data', this.#onData);
    this.#input.on('error', this.#onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.#input.off('data', this.#onData);
    this.#input.off('error', this.#onError);
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#parts = [];
    this.#size = 0;
    this.#over = null;
    this.onclose?.();
  }

  readonly #onError = (e: Error) => this.onerror?.(e);

  readonly #onData = (chunk: Buffer | string) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let from = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, from);
      this.#take(buf.subarray(from, nl === -1 ? buf.length : nl));
      if (nl === -1) return;
      this.#endLine();
      from = nl + 1;
    }
  };

  /** Adds a piece of the current line, switching to skipping once it passes the limit. */
  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    const over = this.#over;
    if (over) {
      over.bytes += piece.length;
      over.tail = Buffer.from(Buffer.concat([over.tail, piece.subarray(-KEEP)]).subarray(-KEEP));
      return;
    }
    if (this.#size + piece.length <= this.#max) {
      // Copied: a subarray would keep the whole chunk it came from alive.
      this.#parts.push(Buffer.from(piece));
      this.#size += piece.length;
      return;
    }
    const line = Buffer.concat([...this.#parts, piece]);
    this.#over = {
      bytes: line.length,
      head: Buffer.from(line.subarray(0, KEEP)),
      tail: Buffer.from(line.subarray(-KEEP)),
    };
    this.#parts = [];
    this.#size = 0;
  }

  #endLine(): void {
    const over = this.#over;
    if (over) {
      this.#over = null;
      return this.#refuse(over);
    }
    const text = Buffer.concat(this.#parts).toString('utf8').replace(/\r$/, '');
    this.#parts = [];
    this.#size = 0;
    if (text.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      return this.#answer(undefined, ErrorCode.ParseError, `Parse error: ${(e as Error).message}`);
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = (json as { id?: unknown } | null)?.id;
      const known = typeof id === 'string' || typeof id === 'number' ? id : undefined;
      return this.#answer(known, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
    }
    this.onmessage?.(parsed.data);
  }

  #refuse(over: { bytes: number; head: Buffer; tail: Buffer }): void {
    const head = over.head.toString('utf8');
    const id = findRequestId(head, over.tail.toString('utf8'));
    const method = METHOD.exec(head)?.[1];
    const tool = method === 'tools/call' ? TOOL.exec(head)?.[1] : undefined;
    const what = method ? `${method}${tool ? ` (${tool})` : ''} request` : 'message';
    const message =
      `Request too large: this ${what} is ${over.bytes} bytes; the limit is ${this.#max} bytes ` +
      `(${(this.#max / 1048576).toFixed(this.#max % 1048576 ? 2 : 0)} MiB) per message. It was not ` +
      'read, and nothing was run; the episode goes on. Send large content in smaller pieces.';
    this.#answer(id, ErrorCode.InvalidRequest, message, { bytes: over.bytes, limit: this.#max });
  }

  /** Sends an error response (without an id when the request's is unknown) and reports it. */
  #answer(id: RequestId | undefined, code: number, message: string, data?: unknown): void {
    this.onerror?.(new Error(message));
    const error = { code, message, ...(data === undefined ? {} : { data }) };
    const response = { jsonrpc: '2.0' as const, ...(id === undefined ? {} : { id }), error };
    this.send(response as JSONRPCMessage).catch((e: Error) => this.onerror?.(e));
  }
}
