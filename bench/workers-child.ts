/**
 * One writer process of `bench/workers.ts`: connects to the NATS at argv[2], warms up, prints
 * `ready`, waits for `go <durationMs>` on stdin, then appends small realistic events to episode
 * argv[3] one at a time (each awaited, as the runner does) until the time is up, and prints
 * `{"count":…,"ms":…}`.
 */
import { createInterface } from 'node:readline';
import { connectNats, EpisodeLog } from '../streams/index.js';
import { roundEvents, writeFor } from './workers.js';

const [url, episodeId] = process.argv.slice(2);
if (!url || !episodeId) throw new Error('usage: workers-child.ts <nats-url> <episode-id>');
const nc = await connectNats(url, { name: `bench-writer-${process.pid}` });
const log = await EpisodeLog.open(nc);
const warm = log.writer(`${episodeId}-warm`);
for (let r = 1; r <= 25; r++) for (const e of roundEvents(r)) await warm.append(e);
console.log('ready');

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const m = /^go (\d+)$/.exec(line.trim());
  if (!m) continue;
  const r = await writeFor(log.writer(episodeId), Number(m[1]));
  console.log(JSON.stringify(r));
  break;
}
lines.close();
await nc.close();
