/**
 * Events per second sustained by N writers appending to N episodes of one nats-server
 * (`sync_interval: always`, the default of `startNatsServer`).
 *
 * Processes: N child processes (`bench/workers-child.ts`), one episode each, as N workers would be;
 * each appends small realistic events (a round's observation, decision, action start and result)
 * through `EpisodeLog.writer(id).append`, one at a time and awaited, for `durationMs`. They warm up,
 * say `ready`, and start together on `go`. In-process: N such writer loops in this process on one
 * connection, as one worker running N episodes at once. Aggregate = Σ events / elapsed per writer.
 *
 * Run: `node --import tsx bench/workers.ts [seconds] [N…]` (defaults 5; 1 2 4 8).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  connectNats,
  encodeEvent,
  EpisodeLog,
  startNatsServer,
  type EpisodeEvent,
  type EpisodeWriter,
} from '../streams/index.js';

const CHILD = join(import.meta.dirname, 'workers-child.ts');
const ROOT = join(import.meta.dirname, '..');

/** The four events of one round of a CLI episode, at realistic small sizes (~0.2–0.6 KiB each). */
export function roundEvents(round: number): EpisodeEvent[] {
  const at = Date.now();
  const action = {
    type: 'shell' as const,
    command: `openscad -o part.stl part.scad && ls -l part.stl # ${round}`,
  };
  return [
    {
      v: 1,
      at,
      type: 'observation.recorded',
      round,
      text: `Round ${round} of 100. Last action: exit 0 in 412 ms.\n$ ls\npart.scad part.stl progress.txt\n${'-rw-r--r-- 1 agent agent 1234 part.scad\n'.repeat(4)}`,
    },
    {
      v: 1,
      at,
      type: 'agent.decided',
      round,
      raw: { actions: [action] },
      decision: { kind: 'act', actions: [action] },
      latencyMs: 850,
      stateDigest: null,
    },
    { v: 1, at, type: 'action.started', round, index: 0, action },
    {
      v: 1,
      at,
      type: 'action.executed',
      round,
      index: 0,
      action,
      result: {
        stdout: `-rw-r--r-- 1 agent agent 184084 Jan  1 00:00 part.stl\n${'Geometries in cache: 3\nCGAL Polyhedrons in cache: 0\n'.repeat(3)}`,
        stderr: '',
        exitCode: 0,
        durationMs: 412,
        truncated: false,
        timedOut: false,
      },
    },
  ] as EpisodeEvent[];
}

/** Appends rounds of events one at a time, awaited, until `durationMs` is up. */
export async function writeFor(w: EpisodeWriter, durationMs: number): Promise<{ count: number; ms: number }> {
  const t0 = performance.now();
  let count = 0;
  for (let r = 1; performance.now() - t0 < durationMs; r++)
    for (const e of roundEvents(r)) {
      await w.append(e);
      count++;
    }
  return { count, ms: performance.now() - t0 };
}

/** One measurement: N writers, aggregate events per second. */
export interface WorkersRow {
  /** `processes (sync default)`: the largest N again, on a server without fsync on every write. */
  mode: 'processes' | 'in-process' | 'processes (sync default)';
  n: number;
  events: number;
  perSec: number;
}

function child(url: string, episodeId: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', CHILD, url, episodeId], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

/** Resolves each line the child prints, in order. */
function lineReader(p: ChildProcess): () => Promise<string> {
  const lines: string[] = [];
  const waiting: ((l: string) => void)[] = [];
  const rl = createInterface({ input: p.stdout! });
  rl.on('line', (l) => (waiting.length ? waiting.shift()!(l) : lines.push(l)));
  const failed = new Promise<string>((_, reject) =>
    p.once('exit', (code) => reject(new Error(`writer process exited with ${code} before reporting`))),
  );
  failed.catch(() => undefined);
  return () =>
    lines.length
      ? Promise.resolve(lines.shift()!)
      : Promise.race([new Promise<string>((r) => waiting.push(r)), failed]);
}

async function viaProcesses(url: string, n: number, durationMs: number): Promise<WorkersRow> {
  const tag = `bench-proc-${n}-${Date.now()}`;
  const kids = Array.from({ length: n }, (_, i) => child(url, `${tag}-${i}`));
  try {
    const readers = kids.map(lineReader);
    await Promise.all(
      readers.map(async (next) =>
        (await next()) === 'ready' ? null : Promise.reject(new Error('no ready')),
      ),
    );
    for (const k of kids) k.stdin!.write(`go ${durationMs}\n`);
    const results = await Promise.all(
      readers.map(async (next) => JSON.parse(await next()) as { count: number; ms: number }),
    );
    return aggregate('processes', n, results);
  } finally {
    for (const k of kids) if (k.exitCode === null && k.signalCode === null) k.kill('SIGTERM');
  }
}

async function inProcess(nc: NatsConnection, n: number, durationMs: number): Promise<WorkersRow> {
  const log = await EpisodeLog.open(nc);
  const tag = `bench-inproc-${n}-${Date.now()}`;
  const warm = log.writer(`${tag}-warm`);
  for (let r = 1; r <= 25; r++) for (const e of roundEvents(r)) await warm.append(e);
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => writeFor(log.writer(`${tag}-${i}`), durationMs)),
  );
  return aggregate('in-process', n, results);
}

function aggregate(mode: WorkersRow['mode'], n: number, rs: { count: number; ms: number }[]): WorkersRow {
  return {
    mode,
    n,
    events: rs.reduce((a, r) => a + r.count, 0),
    perSec: rs.reduce((a, r) => a + r.count / (r.ms / 1000), 0),
  };
}

/** Runs every N as processes, then in-process, against one fresh server. */
export async function benchWorkers(
  o: { ns?: number[]; durationMs?: number; progress?: (line: string) => void } = {},
): Promise<WorkersRow[]> {
  const ns = o.ns ?? [1, 2, 4, 8];
  const durationMs = o.durationMs ?? 5_000;
  const say = o.progress ?? ((l: string) => console.error(l));
  await using server = await startNatsServer();
  const nc = await connectNats(server.url);
  const rows: WorkersRow[] = [];
  try {
    await EpisodeLog.open(nc); // creates the streams once, before the writers race to
    for (const n of ns) {
      say(`workers: ${n} writer process(es) for ${durationMs / 1000} s…`);
      rows.push(await viaProcesses(server.url, n, durationMs));
    }
    for (const n of ns) {
      say(`workers: ${n} writer(s) in one process for ${durationMs / 1000} s…`);
      rows.push(await inProcess(nc, n, durationMs));
    }
  } finally {
    await nc.close();
  }
  // The same load without fsync on every write: shows how much of the ceiling is the disk.
  const top = Math.max(...ns);
  say(`workers: ${top} writer process(es), server without sync_interval always, for ${durationMs / 1000} s…`);
  await using lax = await startNatsServer({ syncAlways: false });
  const nc2 = await connectNats(lax.url);
  try {
    await EpisodeLog.open(nc2);
    rows.push({ ...(await viaProcesses(lax.url, top, durationMs)), mode: 'processes (sync default)' });
  } finally {
    await nc2.close();
  }
  return rows;
}

/** The table: N, processes and in-process side by side, each with its speedup over N = 1. */
export function formatWorkers(rows: readonly WorkersRow[]): string {
  const sizes = roundEvents(1).map((e) => encodeEvent(e).length);
  const ns = [...new Set(rows.map((r) => r.n))];
  const get = (mode: WorkersRow['mode'], n: number) => rows.find((r) => r.mode === mode && r.n === n);
  const base = (mode: WorkersRow['mode']) => get(mode, 1)?.perSec ?? NaN;
  const rate = (x: number | undefined) => (x === undefined ? '—' : Math.round(x).toLocaleString('en-US'));
  const sp = (x: number | undefined, b: number) => (x === undefined ? '—' : `${(x / b).toFixed(2)}x`);
  const head = ['N', 'processes events/s', 'vs N=1', 'in-process events/s', 'vs N=1', 'proc / in-proc'];
  const body = ns.map((n) => {
    const [p, i] = [get('processes', n)?.perSec, get('in-process', n)?.perSec];
    return [
      String(n),
      rate(p),
      sp(p, base('processes')),
      rate(i),
      sp(i, base('in-process')),
      p !== undefined && i !== undefined ? `${(p / i).toFixed(2)}x` : '—',
    ];
  });
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (x: string[]) => x.map((c, i) => c.padStart(w[i]!)).join('  ');
  const lax = rows.find((r) => r.mode === 'processes (sync default)');
  const strict = lax && get('processes', lax.n);
  return [
    `awaited EpisodeWriter.append, one episode per writer, sync_interval always; event sizes ${sizes.join('/')} B`,
    line(head),
    ...body.map(line),
    ...(lax && strict
      ? [
          `${lax.n} processes, server without sync_interval always: ${rate(lax.perSec)} events/s (${(lax.perSec / strict.perSec).toFixed(2)}x sync always)`,
        ]
      : []),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [secs, ...ns] = process.argv.slice(2).map(Number);
  const rows = await benchWorkers({
    durationMs: (secs || 5) * 1000,
    ...(ns.length ? { ns } : {}),
  });
  console.log(formatWorkers(rows));
}
