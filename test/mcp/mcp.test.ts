/**
 * `engiloop mcp`: a real process driven by the official MCP SDK client over stdio, against a
 * nats-server of its own and Docker. The reference solution is played through the tools; the log
 * must hold one round per acting call, and a client that goes away must leave no container behind.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EpisodeLog, type EpisodeEvent } from '../../streams/index.js';
import type { Action } from '../../tasks/index.js';
import { cli } from '../helpers/cli.js';
import { STARTER, starter } from '../helpers/episode.js';
import { startTestNats, type TestNats } from '../helpers/nats.js';

const ROOT = join(import.meta.dirname, '../..');
const TASK = join(STARTER, 'openscad-plate');
const LONG = { timeout: 300_000 };

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

/** Starts `engiloop mcp` on `task` as an SDK client's stdio server; stderr is collected. */
async function connect(runId: string, task = TASK, extra: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      join(ROOT, 'actors/cli/main.ts'),
      'mcp',
      '--task',
      task,
      '--run-id',
      runId,
      ...extra,
    ],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NATS_URL: nats.url, ENGILOOP_HOME: home },
    stderr: 'pipe',
  });
  const out = { stderr: '' };
  transport.stderr!.on('data', (b: Buffer) => (out.stderr += b.toString()));
  const client = new Client({ name: 'engiloop-test', version: '1.0.0' });
  await client.connect(transport);
  // The SDK keeps the child private; the test needs its exit code.
  const child = (transport as unknown as { _process?: ChildProcess })._process!;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { client, transport, out, exited };
}

const text = (r: unknown): string =>
  (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
const newRunId = () => `rmcp${randomBytes(4).toString('hex')}`;

async function episodeEvents(runId: string): Promise<EpisodeEvent[]> {
  const log = await EpisodeLog.open(nats.nc);
  const ids = await log.listEpisodes(runId);
  expect(ids).toHaveLength(1);
  return log.read(ids[0]!);
}

describe('engiloop mcp', () => {
  it('has --help and rejects a bad task folder with exit 2', async () => {
    const h = await cli(['mcp', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/Usage: engiloop mcp/);
    const b = await cli(['mcp', '--task', join(home, 'nowhere')], { NATS_URL: nats.url });
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/no such folder/);
  });

  it('plays the reference solution through MCP tools, records every round and verifies on done', async () => {
    const runId = newRunId();
    const { client, transport, out, exited } = await connect(runId);
    try {
      expect(client.getInstructions()).toContain('Model a mounting plate in OpenSCAD');
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(['done', 'fail', 'observe', 'shell']);

      const first = await client.callTool({ name: 'observe', arguments: {} }, undefined, LONG);
      expect(first.isError).toBeFalsy();
      expect(text(first)).toMatch(/^Round 1 of 100\. Workspace contents:/);

      const steps = (await starter('openscad-plate')).task.reference.flat() as Action[];
      const commands = steps.map((s) => (s.type === 'shell' ? s.command : ''));
      expect(commands.every(Boolean)).toBe(true);
      for (const [i, command] of commands.entries()) {
        const r = await client.callTool({ name: 'shell', arguments: { command } }, undefined, LONG);
        expect(r.isError, command).toBeFalsy();
        expect(text(r)).toContain(`Round ${i + 2} of 100.`);
        expect(text(r)).toContain(`$ ${command}`);
        expect(text(r)).toMatch(/\[exit 0, \d+ ms\]/);
        if (command.includes('ls -l part.stl')) expect(text(r)).toMatch(/stdout:\n.* part\.stl\n/);
      }
      expect(text(await client.callTool({ name: 'observe', arguments: {} }))).toMatch(/part\.stl/);

      const done = await client.callTool({ name: 'done', arguments: { message: 'plate' } }, undefined, LONG);
      expect(done.isError).toBeFalsy();
      expect(text(done)).toMatch(/status done, score 1\.000, passed/);
      expect(text(done)).toMatch(/genus\s+stl\.geometry\s+pass/);

      const after = await client.callTool({ name: 'shell', arguments: { command: 'ls' } });
      expect(after.isError).toBe(true);
      expect(text(after)).toMatch(/already ended/);
    } finally {
      await transport.close();
    }
    expect(await exited, out.stderr).toBe(0);

    const events = await episodeEvents(runId);
    expect(events[0]).toMatchObject({ type: 'episode.started', agent: 'mcp:engiloop-test' });
    const decided = events.filter((e) => e.type === 'agent.decided');
    // observe spends no round: the two shell calls and done are the three decisions.
    expect(decided.map((e) => e.decision.kind)).toEqual(['act', 'act', 'done']);
    expect(events.filter((e) => e.type === 'action.executed')).toHaveLength(2);
    expect(events.find((e) => e.type === 'verification.completed')).toMatchObject({ passed: true, score: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'episode.ended', status: 'done', score: 1 });
  });

  it('--fork continues an episode from a round through MCP tools; the fork records its parent', async () => {
    const env = { NATS_URL: nats.url, ENGILOOP_HOME: home };
    const run = await cli(['run', TASK, '--agent', 'scripted:wrong-width', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const original = (JSON.parse(run.stdout) as { results: { episodeId: string; passed: boolean }[] })
      .results[0]!;
    expect(original.passed).toBe(false);
    const runId = newRunId();
    const { client, transport, out, exited } = await connect(runId, TASK, [
      '--fork',
      original.episodeId,
      '--at',
      '0',
    ]);
    try {
      const steps = (await starter('openscad-plate')).task.reference.flat() as Action[];
      for (const s of steps)
        if (s.type === 'shell')
          await client.callTool({ name: 'shell', arguments: { command: s.command } }, undefined, LONG);
      const done = await client.callTool({ name: 'done', arguments: {} }, undefined, LONG);
      expect(text(done)).toMatch(/status done, score 1\.000, passed/);
    } finally {
      await transport.close();
    }
    expect(await exited, out.stderr).toBe(0);
    const events = await episodeEvents(runId);
    expect(events[0]).toMatchObject({
      type: 'episode.started',
      agent: 'mcp:engiloop-test',
      parent: { episodeId: original.episodeId, round: 0 },
    });
    const bad = await cli(['mcp', '--task', TASK, '--fork', original.episodeId], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--fork and --at go together/);
  });

  it('a client that disconnects mid-action ends the episode as infra_error and leaves no container', async () => {
    const runId = newRunId();
    const { client, transport, out, exited } = await connect(runId);
    const pending = client
      .callTool({ name: 'shell', arguments: { command: 'sleep 120' } }, undefined, LONG)
      .catch((e: Error) => e);
    for (let i = 0; i < 600 && !/acting round 1/.test(out.stderr); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(out.stderr).toMatch(/acting round 1/);
    await transport.close(); // ends the child's stdin; SIGTERM only if it is still there 2 s later
    expect(await exited, out.stderr).toBe(1);
    // It went on stdin's end, before any SIGTERM (which would print the Ctrl-C message).
    expect(out.stderr).not.toMatch(/interrupted: stopping episodes/);
    expect(out.stderr).toMatch(/ABORTED/);
    // The in-flight call is cut (an error), or its reply, the episode's end, outran the shutdown.
    const cut = await pending;
    expect(cut instanceof Error ? 'status infra_error' : text(cut)).toMatch(/status infra_error/);

    const events = await episodeEvents(runId);
    expect(events.find((e) => e.type === 'infra.failed')).toMatchObject({ error: { code: 'ABORTED' } });
    expect(events.at(-1)).toMatchObject({ type: 'episode.ended', status: 'infra_error', score: null });
    const left = await new Docker().listContainers({
      all: true,
      filters: { label: [`io.engiloop.run=${runId}`] },
    });
    expect(left).toEqual([]);
  });
});
