/**
 * A local HTTP server (127.0.0.1, random port) that answers like an LLM provider with recorded
 * responses from test/fixtures/providers/, in the order they are queued, and keeps every request it
 * received. Also the task and input builders the agent tests share.
 *
 * @example
 * ```ts
 * await using server = await startRecordedProvider();
 * server.queue(recorded('openai-429'), recorded('openai-tool-call'));
 * const agent = new LlmAgent({ provider: 'openai', model: 'gpt-4o', apiKey: KEY, baseURL: server.openaiBaseURL });
 * ```
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { AgentInput } from '../../actors/agents/index.js';
import type { RoundRecord } from '../../machines/index.js';
import { asyncDispose } from '../../core/index.js';
import { TaskSchema, type Task } from '../../tasks/index.js';

/**
 * A recorded provider response. `hang: true` never answers (for timeouts); `delayMs` answers that
 * long after the request has arrived (for latencies).
 */
export interface RecordedResponse {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
  hang?: boolean;
  delayMs?: number;
}

/** What the server received. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Raw body text. */
  text: string;
  body: unknown;
}

const FIXTURES = fileURLToPath(new URL('../fixtures/providers/', import.meta.url));

/** A recorded response from test/fixtures/providers/<name>.json. */
export function recorded(name: string): RecordedResponse {
  return JSON.parse(readFileSync(`${FIXTURES}${name}.json`, 'utf8')) as RecordedResponse;
}

export interface RecordedProvider {
  /** `http://127.0.0.1:<port>/v1`, the OpenAI SDK's base URL convention. */
  openaiBaseURL: string;
  /** `http://127.0.0.1:<port>`, the Anthropic SDK's. */
  anthropicBaseURL: string;
  received: ReceivedRequest[];
  queue(...responses: RecordedResponse[]): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts the server; a request with nothing queued gets a 599 so a test fails loudly. */
export async function startRecordedProvider(): Promise<RecordedProvider> {
  const pending: RecordedResponse[] = [];
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, text, body });
      const r = pending.shift() ?? { status: 599, body: { error: { message: 'nothing queued' } } };
      if (r.hang) return; // the client times out; closeAllConnections() ends it
      const answer = () => {
        res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
        res.end(JSON.stringify(r.body));
      };
      if (r.delayMs) setTimeout(answer, r.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return closed;
  };
  return {
    openaiBaseURL: `http://127.0.0.1:${port}/v1`,
    anthropicBaseURL: `http://127.0.0.1:${port}`,
    received,
    queue: (...r) => pending.push(...r),
    close,
    [asyncDispose]: close,
  };
}

/** A small valid task of the given interface. */
export function testTask(iface: 'cli' | 'gui' = 'cli', over: Record<string, unknown> = {}): Task {
  const t = TaskSchema.parse({
    id: 'llm-plate',
    title: 'Mounting plate as DXF',
    domain: 'cad',
    type: 'single-software',
    interface: iface,
    objective: 'Draw a 120 x 80 mm plate with four 10 mm holes and save it as plate.dxf.',
    environment: {
      sandboxes: {
        main:
          iface === 'gui'
            ? { image: 'engiloop/desktop:latest', desktop: { launch: 'librecad', window: 'LibreCAD' } }
            : { image: 'engiloop/cli:latest' },
      },
    },
    deliverables: [{ path: 'plate.dxf', format: 'dxf' }],
    criteria: [{ id: 'exists', verifier: 'file' }],
    reference: [{ type: 'shell', command: 'true' }],
    ...over,
  });
  return { ...t, limits: { ...t.limits, max_rounds: 100 } } as Task;
}

/** Agent input for round `history.length + 1`. */
export function inputFor(
  task: Task,
  observation: string,
  history: RoundRecord[] = [],
  extra: Partial<AgentInput> = {},
): AgentInput {
  return { task, round: history.length + 1, observation, history, ...extra };
}

/** A round that ran one shell command successfully. */
export function shellRound(round: number, command: string, observation: string): RoundRecord {
  const action = { type: 'shell' as const, command };
  return {
    round,
    observation,
    decision: { kind: 'act', actions: [action] },
    results: [
      {
        action,
        result: {
          stdout: 'ok\n',
          stderr: '',
          exitCode: 0,
          durationMs: 12,
          truncated: false,
          timedOut: false,
        },
      },
    ],
  };
}

/** A `sleep` that records the delays and returns at once. */
export function fakeSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: (ms: number) => {
      delays.push(ms);
      return Promise.resolve();
    },
  };
}
