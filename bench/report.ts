/**
 * `engiloop report` of a 1,000-episode run: time to write the site and its size on disk, against
 * the target (under 30 s here). The run is synthetic but realistic — the failure-analysis bench's
 * episodes (60 % failing verilog iterations, 30 % openscad passes, 10 % infra_error) appended to a
 * real JetStream with their summaries, plus one 1,000-round episode — so the report reads what a
 * real run leaves. Page timings (first paint, memory) are in bench/report-pages.ts.
 *
 *   npx tsx bench/report.ts [--episodes 1000] [--rounds 1000] [--out dir]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { recordSummary } from '../actors/analysis/index.js';
import { writeReport } from '../actors/report/index.js';
import {
  BlobStore,
  connectNats,
  EpisodeLog,
  RunIndex,
  startNatsServer,
  SummaryStore,
  type EpisodeEvent,
} from '../streams/index.js';
import { longEpisode, runEpisode } from './analysis.js';

const { values } = parseArgs({
  options: {
    episodes: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '1000' },
    out: { type: 'string' },
  },
});
const n = Number(values.episodes);
await using server = await startNatsServer({});
const nc = await connectNats(server.url, { name: 'bench-report' });
const out = values.out ?? (await mkdtemp(join(tmpdir(), 'engiloop-report-bench-')));
try {
  const stores = {
    log: await EpisodeLog.open(nc),
    runs: await RunIndex.open(nc),
    summaries: await SummaryStore.open(nc),
    blobs: await BlobStore.open(nc),
  };
  const runId = 'bench-run';
  const logs: EpisodeEvent[][] = Array.from({ length: n }, (_, i) => runEpisode(i, runId));
  logs.push(longEpisode('bench-long', runId, Number(values.rounds)));
  const ids = logs.map((l) => (l[0] as Extract<EpisodeEvent, { type: 'episode.started' }>).episodeId);
  await stores.runs.start(runId, { suite: 'bench', agent: 'bench', episodes: ids, startedAt: Date.now() });
  let events = 0;
  for (const [i, l] of logs.entries()) {
    await stores.log.writer(ids[i]!).appendPipelined(l);
    events += l.length;
    const r = await recordSummary(stores.log, stores.summaries, ids[i]!);
    if (!r.ok) throw new Error(r.error);
    if ((i + 1) % 100 === 0) process.stderr.write(`\r  appended ${i + 1}/${logs.length} episodes`);
  }
  process.stderr.write('\n');
  const t = performance.now();
  const w = await writeReport(stores, [runId], out, {
    engiloop: 'bench',
    onProgress: (d, total) => d % 200 === 0 && process.stderr.write(`\r  report ${d}/${total}`),
  });
  const s = (performance.now() - t) / 1000;
  process.stderr.write('\n');
  const mib = w.bytes / 2 ** 20;
  console.log(`| | value | target |`);
  console.log(`|---|---|---|`);
  console.log(`| episodes (events) | ${logs.length} (${events}) | |`);
  console.log(`| report generation | ${s.toFixed(1)} s | < 30 s (${(30 / s).toFixed(1)}× inside) |`);
  console.log(
    `| size on disk | ${mib.toFixed(1)} MiB in ${w.files} files (${(w.bytes / logs.length / 1024).toFixed(1)} KiB per episode) | |`,
  );
  console.log(`| report at | ${w.index} | |`);
} finally {
  await nc.close();
  if (!values.out) await rm(out, { recursive: true, force: true });
}
