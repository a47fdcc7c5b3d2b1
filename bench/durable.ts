/**
 * The durability numbers, in one run, one after the other (the benches share the machine's cores,
 * so they never run at once):
 *   1. time from a worker's kill -9 to its episodes resuming on another worker (`resume.ts`)
 *   2. re-execute replay time against the original run time (`replay.ts`)
 *   3. events/s sustained by N writers appending to N episodes (`workers.ts`)
 * Fold speed on a 10,000-event episode is in `bench/run.ts` (`fold.ts`).
 *
 * Run: `node --import tsx bench/durable.ts [resume trials] [replay repeats] [writer seconds]`
 * (defaults 3, 5, 5). Progress goes to stderr, the tables to stdout. Needs Docker, nats-server and
 * the `engiloop/cli` image (`npm run setup`).
 */
import { availableParallelism, loadavg } from 'node:os';
import { benchReplay, formatReplay } from './replay.js';
import { benchResume, formatResume } from './resume.js';
import { benchWorkers, formatWorkers } from './workers.js';

const [trials = 3, repeat = 5, seconds = 5] = process.argv.slice(2).map(Number);
const progress = (line: string) => console.error(line);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const t0 = performance.now();
const loadBefore = load();
console.error(`resume: ${trials} trial(s) per snapshot_every value…`);
const resume = await benchResume({ trials, progress });
console.error(`replay: ${repeat} run(s) per task…`);
const replay = await benchReplay({ repeat, progress });
console.error(`workers: ${seconds} s per N…`);
const workers = await benchWorkers({ durationMs: seconds * 1000, progress });

console.log(
  `\n${availableParallelism()} cores; load average ${loadBefore} at start, ${load()} at end; ${Math.round((performance.now() - t0) / 1000)} s in all`,
);
console.log('\n## Worker death → episode resumed elsewhere');
console.log(formatResume(resume));
console.log('\n## Re-execute replay vs original run');
console.log(formatReplay(replay));
console.log('\n## N writers appending to N episodes');
console.log(formatWorkers(workers));
