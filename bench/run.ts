/**
 * `npm run bench`: every number the spine reports, in one run, side by side.
 *   1. per-command overhead: persistent shell vs one `docker exec` per command (p50, p95)
 *   2. events appended per second to JetStream: awaited and pipelined (sync_interval always)
 *   3. events folded per second through the pure episode machine
 * Sizes: `node --import tsx bench/run.ts [commands] [appends] [rounds]` (defaults 200, 5000, 300).
 */
import { benchFold } from './fold.js';
import { benchSandbox, formatBench } from './sandbox.js';
import { benchStreams } from './streams.js';

const [nCmd = 200, nAppend = 5000, rounds = 300] = process.argv.slice(2).map(Number);
const fmt = (x: number) => Math.round(x).toLocaleString('en-US').padStart(12);

console.error(`sandbox: ${nCmd} commands each way…`);
const sandbox = await benchSandbox({ n: nCmd });
console.error(`streams: ${nAppend} appends per variant…`);
const streams = await benchStreams({ n: nAppend });
console.error(`fold: a ${rounds}-round episode 20 times, and a 10,000-event episode…`);
const folds = [...benchFold({ rounds, repeat: 20 }), ...benchFold({ rounds: 3_333, repeat: 2 })];

console.log('\n## Per-command overhead (command `true`)');
console.log(formatBench(sandbox));
console.log('\n## Event log throughput and decode');
const w = Math.max(...[...streams, ...folds].map((r) => r.name.length));
for (const r of streams) console.log(`${r.name.padEnd(w)}  ${fmt(r.perSec)} /s`);
const awaited = streams.find((r) => r.name.startsWith('append awaited, EpisodeWriter'));
const piped = streams.find((r) => r.name.startsWith('append pipelined, appendPipelined'));
if (awaited && piped)
  console.log(
    `${'pipelined vs awaited (EpisodeWriter)'.padEnd(w)}  ${(piped.perSec / awaited.perSec).toFixed(1).padStart(11)}x`,
  );
console.log('\n## Fold (replay)');
for (const r of folds) console.log(`${r.name.padEnd(w)}  ${fmt(r.perSec)} events/s`);
