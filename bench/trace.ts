/**
 * What a verdict trace costs, and what the snapshots it reads cost the episode.
 *
 * A real episode (real nats-server, Docker, verifiers) of openscad-plate, `rounds` rounds long: the
 * reference in rounds 1–2, then each round re-exports the part (`openscad -o part.stl part.scad`),
 * the work a CAD agent repeats. Round 1 also writes `ballastKiB` of random bytes to the workspace, so
 * a snapshot can be made to carry more. Played twice: with a snapshot every round, and with none.
 *
 * Printed: the snapshot's time (`workspace.snapshotted.durationMs`) and size against the round time
 * of the episode without snapshots, the measured slow-down of the episode with them, the trace's
 * time per point and in all, and the snapshot interval that keeps snapshots under 5 % of the time.
 *
 * `thinkMs` makes the agent wait that long before each decision, standing in for a model's latency.
 *
 * Run: `flock /tmp/engiloop-heavy.lock npx tsx bench/trace.ts [rounds] [ballastKiB] [thinkMs]`
 * (defaults 30 0 0).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../actors/agents/index.js';
import { traceEpisode } from '../actors/analysis/trace.js';
import { traceReport } from '../actors/analysis/trace-report.js';
import { episodeDeps, runEpisode } from '../actors/episode/index.js';
import { newRunId } from '../actors/run/index.js';
import { BlobStore, connectNats, decodeEvent, EpisodeLog, startNatsServer } from '../streams/index.js';
import { loadTask, type Action } from '../tasks/index.js';

const rounds = Number(process.argv[2] ?? 30);
const ballastKiB = Number(process.argv[3] ?? 0);
const thinkMs = Number(process.argv[4] ?? 0);
const BUDGET = 0.05;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : 0;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const f = (x: number, d = 0) => x.toFixed(d);

async function main(): Promise<void> {
  const server = await startNatsServer();
  const nc = await connectNats(server.url, { name: 'bench-trace' });
  const dir = await mkdtemp(join(tmpdir(), 'engiloop-bench-trace-'));
  try {
    const log = await EpisodeLog.open(nc);
    const blobs = await BlobStore.open(nc);
    const deps = episodeDeps({ log, blobs });
    const base = await loadTask(join(import.meta.dirname, '../tasks/starter/openscad-plate'));
    const lt = { ...base, task: { ...base.task, limits: { ...base.task.limits, max_rounds: rounds + 2 } } };
    const shell = (command: string): Action => ({ type: 'shell', command });
    const ref = base.task.reference.map((s) => [s].flat() as Action[]);
    const plan: Action[][] = [
      [...ref[0]!, ...(ballastKiB ? [shell(`head -c ${ballastKiB * 1024} /dev/urandom > ballast.bin`)] : [])],
      ...ref.slice(1),
      ...Array.from({ length: rounds - ref.length }, () => [
        shell('openscad -o part.stl part.scad 2>&1 | tail -1'),
      ]),
    ];
    const agent: Agent = {
      name: 'bench',
      decide: async ({ round }) => {
        if (thinkMs) await new Promise((r) => setTimeout(r, thinkMs));
        return round <= plan.length ? { actions: plan[round - 1] } : { done: true };
      },
    };
    const runId = newRunId();
    const play = async (every: number) => {
      const episodeId = `${runId}-s${every}`;
      const r = await runEpisode(lt, deps, {
        episodeId,
        runId,
        agent,
        artifactsDir: join(dir, episodeId),
        snapshotEvery: every,
      });
      if (r.status !== 'done' || !r.passed) throw new Error(`episode ${episodeId}: ${r.status} ${r.score}`);
      const raw = await log.readRaw(episodeId);
      const events = raw.map((x) => decodeEvent(x.data, { subject: x.subject, seq: x.seq }));
      const wallMs = events.at(-1)!.at - events[0]!.at;
      return { events, seqs: raw.map((x) => x.seq), roundMs: wallMs / rounds, wallMs };
    };
    process.stderr.write(`episode without snapshots (${rounds} rounds)…\n`);
    const none = await play(0);
    process.stderr.write(`episode with a snapshot every round…\n`);
    const every = await play(1);
    const snaps = every.events.flatMap((e) => (e.type === 'workspace.snapshotted' ? [e] : []));
    const snapMs = snaps.map((s) => s.durationMs);
    const snapBytes = snaps.map((s) => Object.values(s.sandboxes).reduce((n, b) => n + b.bytes, 0));
    process.stderr.write(`trace over ${snaps.length} snapshots…\n`);
    const t0 = performance.now();
    const trace = await traceEpisode(every.events, every.seqs, lt, deps);
    const traceMs = performance.now() - t0;
    const perPoint = trace.costMs.perPoint.slice(0, snaps.length);
    if (trace.points.some((p) => !p.passed && p.round > 2))
      throw new Error('a point after round 2 failed: the trace re-verified wrongly');

    const round = none.roundMs;
    const snap = median(snapMs);
    const slowdown = (every.wallMs - none.wallMs) / none.wallMs;
    // What a snapshot really costs the episode: its own time plus the event and the machine's step.
    const perSnap = Math.max(snap, (every.wallMs - none.wallMs) / snaps.length);
    const interval = Math.max(1, Math.ceil(perSnap / (BUDGET * round)));
    const rows: [string, string, string][] = [
      ['round time, no snapshots (ms)', f(round), '1'],
      ['round time, snapshot every round (ms)', f(every.roundMs), f(every.roundMs / round, 2)],
      ['snapshot, median (ms)', f(snap), f(snap / round, 3)],
      [
        'snapshot, mean / max (ms)',
        `${f(mean(snapMs))} / ${f(Math.max(...snapMs))}`,
        f(mean(snapMs) / round, 3),
      ],
      ['snapshot, measured cost to the episode (ms)', f(perSnap), f(perSnap / round, 3)],
      ['snapshot size, median (KiB)', f(median(snapBytes) / 1024, 1), ''],
      ['trace, per snapshot point, median (ms)', f(median(perPoint)), f(median(perPoint) / round, 3)],
      ['trace, all points (ms)', f(traceMs), f(traceMs / none.wallMs, 3)],
    ];
    const w = Math.max(...rows.map((r) => r[0].length));
    console.log(
      `verdict trace bench: openscad-plate, ${rounds} rounds, ballast ${ballastKiB} KiB, agent think time ${thinkMs} ms`,
    );
    console.log(`${''.padEnd(w)}  ${'value'.padStart(12)}  ${'÷ round'.padStart(8)}`);
    for (const [k, v, r] of rows) console.log(`${k.padEnd(w)}  ${v.padStart(12)}  ${r.padStart(8)}`);
    console.log(
      `episode wall time: ${f(none.wallMs)} ms without snapshots, ${f(every.wallMs)} ms with ${snaps.length} (${f(slowdown * 100, 1)} % slower)`,
    );
    console.log(
      `trace of ${trace.points.length} points (${snaps.length} snapshots + final): ${f(traceMs)} ms = ${f(traceMs / snaps.length)} ms/point; the episode took ${f(every.wallMs)} ms`,
    );
    console.log(
      `recommended snapshot interval: every ${interval} round(s) keeps snapshots under ${BUDGET * 100} % of round time (a snapshot costs ${f(perSnap)} ms, a round ${f(round)} ms); a trace then locates a break to within ${interval} round(s)`,
    );
    if (process.env.TRACE_REPORT) console.log(`\n${traceReport(trace)}`);
  } finally {
    await nc.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
