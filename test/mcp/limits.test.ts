/**
 * Size limits of the MCP bridge. Before: over stdio a message past 10 MiB closed the SDK's
 * transport (that call and every later one hung until the client left), and a `shell` command of
 * 1–10 MB reached the log, which cannot hold it: the episode ended `infra_error` LOG_WRITE_FAILED.
 * Now a message over 1 MiB gets a JSON-RPC error and nothing else happens, and an argument over its
 * cap spends its round as an invalid output; the episode goes on and ends scored. Tested with the
 * SDK's client over our stdio transport (byte streams), over the SDK's HTTP transport, and against
 * the real `engiloop mcp` process with Docker and a nats-server of its own.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentInput } from '../../actors/agents/index.js';
import {
  BoundedStdioServerTransport,
  MAX_MESSAGE_BYTES,
  McpBridgeAgent,
  createMcpServer,
} from '../../actors/mcp/index.js';
import { findRequestId } from '../../actors/mcp/stdio.js';
import { EpisodeLog } from '../../streams/index.js';
import type { LoadedTask } from '../../tasks/index.js';
import { STARTER, starter } from '../helpers/episode.js';
import { startTestNats, type TestNats } from '../helpers/nats.js';

const ROOT = join(import.meta.dirname, '../..');
const LONG = { timeout: 300_000 };

/** An SDK client transport over two byte streams (StdioClientTransport without the spawn). */
class PipeClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (e: Error) => void;
  onmessage?: (m: JSONRPCMessage) => void;
  readonly #buf = new ReadBuffer();
  constructor(
    readonly toServer: PassThrough,
    readonly fromServer: PassThrough,
  ) {}
  async start() {
    this.fromServer.on('data', (c: Buffer) => {
      this.#buf.append(c);
      for (let m = this.#buf.readMessage(); m; m = this.#buf.readMessage()) this.onmessage?.(m);
    });
  }
  async send(m: JSONRPCMessage) {
    this.toServer.write(serializeMessage(m));
  }
  async close() {
    this.onclose?.();
  }
}

async function setup(iface: 'cli' | 'gui' = 'cli') {
  const base = await starter('openscad-plate');
  const lt: LoadedTask = iface === 'gui' ? { ...base, task: { ...base.task, interface: 'gui' } } : base;
  const agent = new McpBridgeAgent();
  const server = createMcpServer(lt, agent);
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const errors: string[] = [];
  server.server.onerror = (e) => errors.push(e.message);
  await server.connect(new BoundedStdioServerTransport(toServer, fromServer));
  const client = new Client({ name: 'limits', version: '1.0.0' });
  await client.connect(new PipeClientTransport(toServer, fromServer));
  const input = (round: number): AgentInput => ({
    task: lt.task,
    round,
    observation: `Round ${round} of 100.`,
    history: [],
  });
  /** Writes a raw line to the server and reads the next line it answers. */
  const rawCall = (line: string | Buffer): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      const seen: Buffer[] = [];
      const on = (c: Buffer) => {
        seen.push(c);
        const all = Buffer.concat(seen).toString();
        if (!all.includes('\n')) return;
        fromServer.off('data', on);
        resolve(JSON.parse(all.split('\n')[0]!) as Record<string, unknown>);
      };
      fromServer.on('data', on);
      toServer.write(line);
    });
  return { agent, client, input, errors, toServer, rawCall };
}

const text = (r: unknown): string =>
  (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

describe('MCP message limit (stdio transport)', () => {
  it('a 2 MB and a 20 MB call get a JSON-RPC error naming the limit; nothing is spent; the next call works', async () => {
    const { agent, client, input, errors } = await setup();
    const round1 = agent.decide(input(1));
    let decided: unknown = null;
    void round1.then((r) => (decided = r));
    for (const size of [2_000_000, 20_000_000]) {
      const t0 = Date.now();
      const err = (await client
        .callTool({ name: 'shell', arguments: { command: 'x'.repeat(size) } })
        .catch((e: Error) => e)) as Error & { code?: number; data?: unknown };
      expect(err).toBeInstanceOf(Error);
      expect(err.code).toBe(-32600);
      expect(err.message).toMatch(
        /tools\/call \(shell\) request is \d+ bytes; the limit is 1048576 bytes \(1 MiB\)/,
      );
      expect(err.data).toMatchObject({ limit: MAX_MESSAGE_BYTES });
      expect(Date.now() - t0).toBeLessThan(5_000);
    }
    expect(errors).toHaveLength(2);
    expect(decided).toBeNull(); // no round was submitted
    const next = client.callTool({ name: 'shell', arguments: { command: 'echo ok' } });
    expect(await round1).toEqual({ actions: [{ type: 'shell', command: 'echo ok' }] });
    agent.decide(input(2));
    expect(text(await next)).toBe('Round 2 of 100.');
  });

  it('holds about one limit of a refused line in memory while skipping 64 MiB of it', async () => {
    const { toServer, rawCall, client } = await setup();
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const before = process.memoryUsage().arrayBuffers;
    const answer = rawCall(
      '{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"shell","arguments":{"command":"',
    );
    let peak = 0;
    for (let i = 0; i < 1024; i++) {
      toServer.write(chunk);
      if (i % 16 === 15) {
        await new Promise((r) => setImmediate(r)); // let the transport read what was written
        peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
      }
    }
    toServer.write('"}}}\n');
    const res = await answer;
    expect(res).toMatchObject({ jsonrpc: '2.0', id: 'big-1', error: { code: -32600 } });
    expect((res.error as { data: { bytes: number } }).data.bytes).toBeGreaterThan(64 * 1024 * 1024);
    expect(peak).toBeLessThan(8 * 1024 * 1024);
    expect((await client.listTools()).tools.length).toBe(4); // still answering
  });

  it('answers a line that is not JSON or not JSON-RPC, accepts CRLF and split lines', async () => {
    const { rawCall, client, toServer } = await setup();
    expect(await rawCall('{not json\n')).toMatchObject({ error: { code: -32700 } });
    expect(await rawCall('{"jsonrpc":"1.0","id":41,"method":"x"}\n')).toMatchObject({
      id: 41,
      error: { code: -32600 },
    });
    const crlf = await rawCall('{"jsonrpc":"2.0","id":42,"method":"tools/list"}\r\n');
    expect(crlf).toMatchObject({ id: 42, result: { tools: expect.any(Array) } });
    const split = rawCall('{"jsonrpc":"2.0",');
    toServer.write('"id":43,"method":"tools');
    toServer.write('/list"}\n');
    expect(await split).toMatchObject({ id: 43 });
    expect((await client.listTools()).tools.length).toBe(4);
  });

  it('finds the request id at the head or the tail of a refused message', () => {
    expect(findRequestId('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{', '')).toBe(7);
    expect(
      findRequestId('{"method":"tools/call","params":{"name":"shell"', 'xx"}},"jsonrpc":"2.0","id":12}'),
    ).toBe(12);
    expect(findRequestId('{"method":"x","params":{', 'aaa","id":"r-1"}\r')).toBe('r-1');
    expect(findRequestId('{"params":{"command":"', 'aaaa"}}}')).toBeUndefined();
    // An "id" inside an argument is not taken for the request's.
    expect(findRequestId('{"params":{"id":3,', '"}}}')).toBeUndefined();
  });
});

describe('MCP argument caps (the call spends its round as an invalid output)', () => {
  it('a 1 MB shell command is not run: recorded as invalid without its text, the round is spent', async () => {
    const { agent, client, input } = await setup();
    const shell = (await client.listTools()).tools.find((t) => t.name === 'shell')!;
    expect(shell.inputSchema.properties!.command).toMatchObject({ maxLength: 262_144 });
    expect(JSON.stringify(shell.inputSchema.properties!.command)).toMatch(/at most 256 KiB \(UTF-8 bytes\)/);

    const round1 = agent.decide(input(1));
    const call = client.callTool({ name: 'shell', arguments: { command: 'x'.repeat(1_000_000) } });
    const raw = (await round1) as Record<string, unknown>;
    expect(raw).toMatchObject({
      code: 'REQUEST_CAP',
      tool: 'shell',
      arg: 'command',
      bytes: 1_000_000,
      limit: 262_144,
    });
    expect(raw.invalid).toMatch(
      /^shell: `command` is 1000000 bytes \(UTF-8\); the limit is 262144 bytes \(256 KiB\)/,
    );
    expect(JSON.stringify(raw).length).toBeLessThan(1_000);
    agent.decide(input(2));
    const r = (await call) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('Round 2 of 100.');

    // Counted in bytes: 100 000 characters of CJK are 300 kB.
    const round3 = agent.decide(input(3));
    const ctl = client.callTool({ name: 'shell', arguments: { command: '日'.repeat(100_000) } });
    expect(await round3).toMatchObject({ code: 'REQUEST_CAP', bytes: 300_000 });
    agent.decide(input(4));
    await ctl;

    // At the cap exactly, it runs.
    const round5 = agent.decide(input(5));
    const fits = client.callTool({ name: 'shell', arguments: { command: 'y'.repeat(262_144) } });
    expect(((await round5) as { actions: { command: string }[] }).actions[0]!.command).toHaveLength(262_144);
    agent.decide(input(6));
    expect(((await fits) as CallToolResult).isError).toBeFalsy();
  });

  it('GUI type text over 64 KiB, a 2 KiB key chord and a 20 KiB done message are refused the same way', async () => {
    const { agent, client, input } = await setup('gui');
    let round = 1;
    for (const [name, args, arg] of [
      ['type', { text: 'a'.repeat(70_000) }, 'text'],
      ['key', { keys: 'ctrl+'.repeat(400) }, 'keys'],
      ['done', { message: 'm'.repeat(20_000) }, 'message'],
    ] as const) {
      const decided = agent.decide(input(round++));
      const call = client.callTool({ name, arguments: args });
      expect(await decided, name).toMatchObject({ code: 'REQUEST_CAP', tool: name, arg });
      agent.decide(input(round));
      expect(((await call) as CallToolResult).isError, name).toBe(true);
    }
    expect(agent.ended).toBeNull(); // the oversized done did not end the episode
  });
});

describe('MCP message limit over HTTP (the SDK transport with the same limit)', () => {
  it('an oversized POST gets a JSON-RPC error naming the limit; the next call works', async () => {
    const lt = await starter('openscad-plate');
    const agent = new McpBridgeAgent();
    const server = createMcpServer(lt, agent);
    const http = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => 'session-1',
      enableJsonResponse: true,
      maxRequestBodySize: MAX_MESSAGE_BYTES,
    });
    await server.connect(http);
    const client = new Client({ name: 'limits-http', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://engiloop.invalid/mcp'), {
        fetch: (url, init) => http.handleRequest(new Request(url, init)),
      }),
    );
    const round1 = agent.decide({ task: lt.task, round: 1, observation: 'Round 1 of 100.', history: [] });
    const err = await client
      .callTool({ name: 'shell', arguments: { command: 'x'.repeat(2_000_000) } })
      .catch((e: Error) => e);
    // 413 with {"code":-32000,"message":"Payload Too Large: …"}; the body is never read past the limit.
    expect(String(err)).toMatch(/-32000.*Payload Too Large: Request body must not exceed 1048576 bytes/);
    const next = client.callTool({ name: 'shell', arguments: { command: 'ls' } });
    expect(await round1).toEqual({ actions: [{ type: 'shell', command: 'ls' }] });
    agent.decide({ task: lt.task, round: 2, observation: 'Round 2 of 100.', history: [] });
    expect(text(await next)).toBe('Round 2 of 100.');
    await client.close();
  });
});

describe('engiloop mcp (real process, Docker)', () => {
  let nats: TestNats;
  let home: string;
  beforeAll(async () => {
    nats = await startTestNats();
    home = await mkdtemp(join(tmpdir(), 'engiloop-home-'));
  });
  afterAll(async () => {
    await nats?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('oversized calls do not wedge the server or end the episode: it goes on and ends scored', async () => {
    const runId = `rlim${randomBytes(4).toString('hex')}`;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        join(ROOT, 'actors/cli/main.ts'),
        'mcp',
        '--task',
        join(STARTER, 'openscad-plate'),
        '--run-id',
        runId,
      ],
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), NATS_URL: nats.url, ENGILOOP_HOME: home },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    const client = new Client({ name: 'limits-e2e', version: '1.0.0' });
    await client.connect(transport);
    const child = (transport as unknown as { _process?: ChildProcess })._process!;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      expect(text(await client.callTool({ name: 'observe', arguments: {} }, undefined, LONG))).toMatch(
        /^Round 1 of 100/,
      );
      for (const size of [2_000_000, 11_000_000]) {
        const t0 = Date.now();
        const err = (await client
          .callTool({ name: 'shell', arguments: { command: 'x'.repeat(size) } }, undefined, {
            timeout: 30_000,
          })
          .catch((e: Error) => e)) as Error & { code?: number };
        expect(err.code, String(err)).toBe(-32600);
        expect(err.message).toMatch(/the limit is 1048576 bytes/);
        expect(Date.now() - t0).toBeLessThan(10_000);
      }
      const big = (await client.callTool(
        { name: 'shell', arguments: { command: `echo ${'a'.repeat(1_000_000)}` } },
        undefined,
        LONG,
      )) as CallToolResult;
      expect(big.isError).toBe(true);
      expect(text(big)).toMatch(
        /^Round 2 of 100\.\nERROR: your last output was not a valid action and was not executed: shell: `command` is 1000005 bytes \(UTF-8\); the limit is 262144 bytes/,
      );
      const ok = await client.callTool(
        { name: 'shell', arguments: { command: 'echo still-here' } },
        undefined,
        LONG,
      );
      expect(text(ok)).toMatch(
        /^Round 3 of 100\.\n\$ echo still-here\n\[exit 0, \d+ ms\]\nstdout:\nstill-here/,
      );
      const done = await client.callTool({ name: 'done', arguments: {} }, undefined, LONG);
      expect(text(done)).toMatch(/status done, score 0\.000, not passed/);
    } finally {
      await transport.close();
    }
    expect(await exited, stderr).toBe(0);
    expect(stderr).toMatch(
      /engiloop mcp: Request too large: this tools\/call \(shell\) request is \d+ bytes/,
    );

    const log = await EpisodeLog.open(nats.nc);
    const [id] = await log.listEpisodes(runId);
    const events = await log.read(id!);
    expect(events.filter((e) => e.type === 'agent.decided').map((e) => e.decision.kind)).toEqual([
      'invalid',
      'act',
      'done',
    ]);
    expect(events.some((e) => e.type === 'infra.failed')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'episode.ended', status: 'done', score: 0 });
    const raw = await log.readRaw(id!);
    expect(Math.max(...raw.map((r) => r.data.length))).toBeLessThan(64 * 1024);
  });
});
