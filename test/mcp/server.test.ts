/**
 * The MCP server and bridge agent without Docker: the SDK client talks to `createMcpServer` over an
 * in-memory transport while the test plays the runner, calling `decide()` and `end()` by hand.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { AgentInput } from '../../actors/agents/index.js';
import type { EpisodeResult } from '../../actors/episode/index.js';
import { McpBridgeAgent, createMcpServer } from '../../actors/mcp/index.js';
import type { LoadedTask } from '../../tasks/index.js';
import { starter } from '../helpers/episode.js';

const png = (s: string) => ({ name: 'screenshot', mediaType: 'image/png', data: Buffer.from(s) });

async function setup(gui: boolean) {
  const base = await starter('openscad-plate');
  const lt: LoadedTask = gui ? { ...base, task: { ...base.task, interface: 'gui' } } : base;
  const agent = new McpBridgeAgent();
  const shots: string[] = [];
  const server = createMcpServer(lt, agent, {
    screenshot: async () => (shots.length ? png(shots.shift()!) : null),
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'unit', version: '1.0.0' });
  await client.connect(b);
  const input = (round: number, extra: Partial<AgentInput> = {}): AgentInput => ({
    task: lt.task,
    round,
    observation: `Round ${round} of 200.`,
    history: [],
    ...extra,
  });
  return { lt, agent, client, shots, input };
}

// Asserted, not annotated: EpisodeResult is gaining fields (e.g. `usage`) as other agents land.
const result = (over: Partial<EpisodeResult> = {}): EpisodeResult =>
  ({
    episodeId: 'e1',
    taskId: 'openscad-plate',
    agent: 'mcp:unit',
    status: 'done',
    score: 0,
    passed: false,
    rounds: 2,
    durationMs: 1500,
    verdicts: [
      {
        criterion: 'bbox',
        verifier: 'stl.geometry',
        role: 'check',
        passed: false,
        score: 0,
        reason: 'too wide',
      },
    ],
    error: null,
    snapshotDigest: null,
    events: 9,
    usage: null,
    ...over,
  }) as EpisodeResult;

const call = (c: Client, name: string, args: Record<string, unknown> = {}) =>
  c.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe('MCP server of an episode', () => {
  it('a GUI task gets the computer-use tools, screenshots as images, one call at a time', async () => {
    const { agent, client, shots, input } = await setup(true);
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'click',
        'done',
        'double_click',
        'drag',
        'fail',
        'key',
        'move',
        'observe',
        'scroll',
        'type',
        'wait',
      ].sort(),
    );
    const click = tools.find((t) => t.name === 'click')!.inputSchema;
    expect(click.required).toEqual(['x', 'y']);
    expect(Object.keys(click.properties!)).toEqual(['x', 'y', 'button']);

    agent.setClient('unit');
    expect(agent.name).toBe('mcp:unit');
    const round1 = agent.decide(input(1, { images: [png('shot-1')] }));
    const seen = await call(client, 'observe');
    expect(seen.content).toEqual([
      { type: 'text', text: 'Round 1 of 200.' },
      { type: 'image', mimeType: 'image/png', data: Buffer.from('shot-1').toString('base64') },
    ]);

    const clicking = call(client, 'click', { x: 10, y: 20 });
    expect(await round1).toEqual({ actions: [{ type: 'click', x: 10, y: 20 }] });
    const busy = await call(client, 'observe');
    expect(busy.isError).toBe(true);
    expect(JSON.stringify(busy.content)).toMatch(/one tool at a time/);

    // No image in the input: the latest screenshot comes from the source.
    shots.push('shot-2');
    const round2 = agent.decide(input(2));
    expect((await clicking).content).toEqual([
      { type: 'text', text: 'Round 2 of 200.' },
      { type: 'image', mimeType: 'image/png', data: Buffer.from('shot-2').toString('base64') },
    ]);

    const done = call(client, 'done', { message: 'finished' });
    expect(await round2).toEqual({ done: true, message: 'finished' });
    agent.end(result());
    const text = (await done).content[0]!;
    expect(text).toMatchObject({ type: 'text' });
    expect((text as { text: string }).text).toMatch(/status done, score 0\.000, not passed/);
    expect((text as { text: string }).text).toMatch(/bbox\s+stl\.geometry\s+FAIL\s+0\.000\s+too wide/);

    const late = await call(client, 'wait', { seconds: 1 });
    expect(late.isError).toBe(true);
    expect(JSON.stringify(late.content)).toMatch(/already ended/);
  });

  it('a CLI task gets shell; a call before the runner asks waits for it; fail and abort', async () => {
    const { agent, client, input } = await setup(false);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'done',
      'fail',
      'observe',
      'shell',
    ]);
    const early = call(client, 'shell', { command: 'ls', timeout_sec: 5 });
    const round1 = agent.decide(input(1));
    expect(await round1).toEqual({ actions: [{ type: 'shell', command: 'ls', timeout_sec: 5 }] });
    const round2 = agent.decide(input(2));
    expect((await early).content).toEqual([{ type: 'text', text: 'Round 2 of 200.' }]);

    const failing = call(client, 'fail', { reason: 'no license' });
    expect(await round2).toEqual({ fail: 'no license' });
    agent.end(result({ status: 'infra_error', score: null, error: { code: 'X', message: 'boom' } }));
    expect(JSON.stringify((await failing).content)).toMatch(/status infra_error, not scored.*X: boom/);

    const ac = new AbortController();
    const decision = new McpBridgeAgent().decide({ ...input(1), signal: ac.signal });
    ac.abort();
    await expect(decision).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
