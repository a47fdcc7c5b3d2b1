/**
 * Throughput of the episode log and the event codec.
 *
 * Appends (own nats-server, `sync_interval: always` unless noted): awaited one at a time through
 * `EpisodeWriter.append` and raw `js.publish`, pipelined through `appendPipelined` and raw
 * `js.publish`; plus the `noAsyncTraces` connection option and a server without fsync-always for
 * comparison. Decode: msgpackr plain maps (our codec), msgpackr records, and JSON, for a realistic
 * `action.executed` event (~4 KiB of stdout) and a small one.
 *
 * Run: `npx tsx bench/streams.ts [n]`.
 */
import { pathToFileURL } from 'node:url';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ConnectionOptions } from '@nats-io/nats-core';
import { Packr, Unpackr } from 'msgpackr';
import {
  connectNats,
  decodeEvent,
  encodeEvent,
  ensureStreams,
  EpisodeLog,
  startNatsServer,
  type ActionExecuted,
} from '../streams/index.js';

/** One measurement. */
export interface BenchResult {
  name: string;
  perSec: number;
}

/** A realistic `action.executed`: a CAD build script's log, ~4 KiB. */
export function sampleEvent(round: number, lines = 60): ActionExecuted {
  const stdout = Array.from(
    { length: lines },
    (_, i) => `[build] step ${i}: solid ok, volume=${(i * 1.37).toFixed(3)} mm3 bbox=[0,0,0]-[40,20,${i}]`,
  ).join('\n');
  return {
    v: 1,
    at: 1_733_000_000_000 + round,
    type: 'action.executed',
    round,
    index: 0,
    action: { type: 'shell', command: 'python3 build.py --out part.step', sandbox: 'cad', timeout_sec: 120 },
    result: {
      stdout,
      stderr: 'warning: tolerance 1e-6\n',
      exitCode: 0,
      durationMs: 1834,
      truncated: false,
      timedOut: false,
    },
  };
}

/** Runs every measurement with `n` events (appends) and `n * 20` decodes. */
export async function benchStreams(opts: { n: number }): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  results.push(...(await benchAppends(opts.n, true)));
  results.push(...(await benchAppends(opts.n, false)));
  results.push(...benchDecode(opts.n * 20));
  return results;
}

async function benchAppends(n: number, syncAlways: boolean): Promise<BenchResult[]> {
  await using server = await startNatsServer({ syncAlways });
  const tag = syncAlways ? 'sync always' : 'sync default';
  const events = Array.from({ length: n }, (_, i) => sampleEvent(i + 1));
  const out: BenchResult[] = [];
  const run = async (
    name: string,
    conn: ConnectionOptions,
    body: (log: EpisodeLog, ep: string) => Promise<void>,
  ) => {
    const nc = await connectNats(server.url, conn);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm);
    const log = new EpisodeLog(jetstream(nc), jsm);
    const t = performance.now();
    await body(log, `bench-${out.length}`);
    out.push({ name: `append ${name} (${tag})`, perSec: n / ((performance.now() - t) / 1000) });
    await nc.close();
  };
  // Warm up the JIT, the connection and the store so the first measurement is not penalised.
  await run('warm-up', {}, async (log, ep) => {
    const w = log.writer(ep);
    for (const e of events.slice(0, 500)) await w.append(e);
  });
  out.pop();
  await run('awaited, EpisodeWriter', {}, async (log, ep) => {
    const w = log.writer(ep);
    for (const e of events) await w.append(e);
  });
  if (syncAlways) {
    await run('awaited, EpisodeWriter, noAsyncTraces', { noAsyncTraces: true }, async (log, ep) => {
      const w = log.writer(ep);
      for (const e of events) await w.append(e);
    });
    await run('awaited, raw js.publish', {}, async (log, ep) => {
      for (const e of events) await log.js.publish(`engiloop.ep.${ep}`, encodeEvent(e));
    });
    await run('awaited, raw js.publish, noAsyncTraces', { noAsyncTraces: true }, async (log, ep) => {
      for (const e of events) await log.js.publish(`engiloop.ep.${ep}`, encodeEvent(e));
    });
  }
  await run('pipelined, appendPipelined (batches of 256)', { noAsyncTraces: true }, async (log, ep) => {
    const w = log.writer(ep);
    for (let i = 0; i < events.length; i += 256) await w.appendPipelined(events.slice(i, i + 256));
  });
  await run('pipelined, raw js.publish', { noAsyncTraces: true }, async (log, ep) => {
    await Promise.all(events.map((e) => log.js.publish(`engiloop.ep.${ep}`, encodeEvent(e))));
  });
  return out;
}

function benchDecode(n: number): BenchResult[] {
  const out: BenchResult[] = [];
  for (const [label, event] of [
    ['4 KiB', sampleEvent(1)],
    ['small', sampleEvent(1, 1)],
  ] as const) {
    const plain = encodeEvent(event);
    const records = new Packr({ useRecords: true }).pack(event);
    const json = Buffer.from(JSON.stringify(event));
    const recordsUnpackr = new Unpackr({ useRecords: true });
    const td = new TextDecoder();
    const time = (name: string, size: number, fn: () => unknown) => {
      for (let i = 0; i < Math.min(n, 10_000); i++) fn(); // warm up
      const t = performance.now();
      for (let i = 0; i < n; i++) fn();
      out.push({ name: `decode ${label} ${name} (${size} B)`, perSec: n / ((performance.now() - t) / 1000) });
    };
    time('msgpackr plain, decodeEvent', plain.length, () => decodeEvent(plain));
    time('msgpackr records', records.length, () => recordsUnpackr.unpack(records));
    time('JSON.parse', json.length, () => JSON.parse(td.decode(json)));
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = Number(process.argv[2] ?? 5_000);
  const results = await benchStreams({ n });
  const width = Math.max(...results.map((r) => r.name.length));
  console.log(`${'measurement'.padEnd(width)}  ${'per second'.padStart(12)}`);
  for (const r of results)
    console.log(`${r.name.padEnd(width)}  ${Math.round(r.perSec).toLocaleString('en-US').padStart(12)}`);
}
