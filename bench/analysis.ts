/**
 * Failure analysis: (a) the detectors over one 1,000-round episode; (b) `analyze` of a 1,000-episode
 * run from the stored summaries (`loadRun` + `analyzeRuns`) against refolding every log (read,
 * `summarizeEpisode` each, `analyzeRuns`). The logs are appended to a real JetStream (a nats-server
 * of its own) and their summaries written with `recordSummary`, as the worker does when an episode
 * ends. Target for (b): under 30 s on this machine.
 *
 *   npx tsx bench/analysis.ts [--rounds 1000] [--episodes 1000]
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  analyzeRuns,
  detect,
  episodeView,
  loadRun,
  recordSummary,
  summarizeEpisode,
  type EpisodeSummary,
} from '../actors/analysis/index.js';
import { fold, stateName } from '../machines/index.js';
import {
  connectNats,
  decodeEvent,
  EpisodeLog,
  RunIndex,
  startNatsServer,
  SummaryStore,
  type ActionRecord,
  type CommandResultRecord,
  type Decision,
  type EpisodeEvent,
} from '../streams/index.js';
import { allPassed, fixture, playScript, verificationOf, type EpisodeScript } from './analysis-log.js';

type Started = Extract<EpisodeEvent, { type: 'episode.started' }>;

const VERILOG = fixture('verilog-counter--off-by-one');
const OPENSCAD = fixture('openscad-plate');
const sh = (command: string): ActionRecord => ({ type: 'shell', command });
const res = (stdout: string, stderr = '', exitCode = 0, durationMs = 40): CommandResultRecord => ({
  stdout,
  stderr,
  exitCode,
  durationMs,
  truncated: false,
  timedOut: false,
});

/** An agent iterating on the off-by-one counter: edits, compiles (some syntax errors), simulates. */
const verilogAgent = {
  decide(round: number, last: number): Decision {
    if (round === last) return { kind: 'done' };
    if (round % 97 === 0) return { kind: 'invalid', error: 'no JSON object in the reply' };
    const cmds = [
      `cat > counter.v <<'EOF'\nmodule counter(input clk, input rst, input en, output reg [3:0] q, output tc);\n  assign tc = en && (q == 4'd9);\n  always @(posedge clk)\n    if (rst) q <= 4'd0;\n    else if (en) q <= (q == 4'd${9 + (round % 3)}) ? 4'd0 : q + 4'd1;\nendmodule\nEOF\n`,
      'iverilog -g2012 -o sim tb.v counter.v',
      'vvp -n sim',
      'cat counter.v',
      'iverilog -g2012 -o sim tb.v counter.v',
      'vvp -n sim | tail -n 20',
      'ls -l',
      'grep -n "q <=" counter.v',
    ];
    return { kind: 'act', actions: [sh(cmds[(round - 1) % cmds.length]!)] };
  },
  result(round: number, a: ActionRecord): CommandResultRecord {
    const c = 'command' in a ? String(a.command) : '';
    if (c.startsWith('iverilog'))
      return round % 3 === 0
        ? res(
            '',
            'counter.v:5: syntax error\ncounter.v:5: error: Malformed conditional expression.\nI give up.\n',
            1,
            120,
          )
        : res('', '', 0, 180);
    if (c.startsWith('vvp')) {
      const lines = Array.from({ length: 60 }, (_, i) =>
        i % 5 === 3
          ? `FAIL ${i}: t=${i * 5000 + 1000} rst=0 en=1 expected q=${i % 10} tc=0, got q=${(i + 1) % 11} tc=0`
          : `ok ${i}: t=${i * 5000 + 1000} q=${i % 10} tc=${i % 10 === 9 ? 1 : 0}`,
      );
      return res(lines.join('\n') + '\n42/137 checks passed\n', '', 0, 260);
    }
    if (c.startsWith('cat counter'))
      return res("module counter(...);\n  assign tc = en && (q == 4'd9);\nendmodule\n");
    if (c.startsWith('ls'))
      return res('total 24\n-rw-r--r-- 1 engi engi  224 counter.v\n-rwxr-xr-x 1 engi engi 9120 sim\n');
    return res("5:    else if (en) q <= (q == 4'd10) ? 4'd0 : q + 4'd1;\n");
  },
};

function verilogScript(
  id: string,
  runId: string,
  rounds: number,
  maxRounds: number,
  snapEvery: number,
): EpisodeScript {
  return {
    episodeId: id,
    runId,
    from: VERILOG[0] as Started,
    maxRounds,
    snapshotEvery: snapEvery,
    decide: (r) => verilogAgent.decide(r, rounds + 1),
    result: (r, a) => verilogAgent.result(r, a),
    verification: verificationOf(VERILOG),
  };
}

/** The openscad plate done right: write, export, look, DONE. */
function openscadScript(id: string, runId: string, rounds: number): EpisodeScript {
  const v = verificationOf(OPENSCAD);
  const steps = [
    "cat > part.scad <<'EOF'\n$fn = 64;\ndifference() { cube([80, 50, 6]); }\nEOF\n",
    'openscad -o part.stl part.scad',
    'ls -l part.stl',
  ];
  return {
    episodeId: id,
    runId,
    from: OPENSCAD[0] as Started,
    maxRounds: 100,
    snapshotEvery: 2,
    decide: (r) =>
      r > rounds ? { kind: 'done' } : { kind: 'act', actions: [sh(steps[(r - 1) % steps.length]!)] },
    result: (_r, a) =>
      String('command' in a ? a.command : '').startsWith('openscad')
        ? res(
            '',
            'Total rendering time: 0:00:00.538\n   Top level object is a 3D object:\n   Simple:        yes\n',
            0,
            605,
          )
        : res('-rw-r--r-- 1 engi engi 162905 Dec  1 16:44 part.stl\n'),
    verification: { ...v, verdicts: allPassed(v.verdicts), score: 1, passed: true },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (t: number) => `${t.toFixed(1)} ms`;

/** A `rounds`-round episode of the off-by-one counter agent (snapshots every 25 rounds). */
export const longEpisode = (id: string, runId: string, rounds: number): EpisodeEvent[] =>
  playScript(verilogScript(id, runId, rounds, rounds, 25));

/** (a) The detectors over one `rounds`-round episode: median of `repeat` runs. */
export function benchDetectors(
  rounds: number,
  repeat = 7,
): { events: number; findings: string[]; ms: number; viewMs: number } {
  const events = longEpisode('bench-long', 'bench', rounds);
  // The strict fold throws on any event the machine refuses; the episode ends at the round limit.
  const status = stateName(fold(events));
  if (events.at(-1)?.type !== 'episode.ended' || status !== 'limit')
    throw new Error(`the long episode folds to ${status}`);
  const seqs = events.map((_, i) => 1000 + i);
  const times: number[] = [];
  const viewTimes: number[] = [];
  let findings: string[] = [];
  for (let i = 0; i < repeat; i++) {
    let t = performance.now();
    const view = episodeView(events, seqs);
    viewTimes.push(performance.now() - t);
    t = performance.now();
    findings = detect(view).map((f) => f.mode);
    times.push(performance.now() - t);
  }
  return { events: events.length, findings, ms: median(times), viewMs: median(viewTimes) };
}

/**
 * One of the run's episodes: 60 % fail (verilog), 30 % pass (openscad), 10 % infra_error, over 100
 * tasks (the two fixtures' tasks under 50 ids each, so the score's interval is over tasks).
 */
export function runEpisode(i: number, runId: string): EpisodeEvent[] {
  const id = `bench-ep-${String(i).padStart(4, '0')}`;
  const t0 = 1_796_143_448_000 + i * 600_000;
  const task = (s: EpisodeScript): EpisodeScript => ({ ...s, taskId: `${s.from.task.id}-${i % 50}` });
  if (i % 10 < 6) return playScript(task(verilogScript(id, runId, 4 + (i % 5), 100, 3)), t0);
  if (i % 10 < 9) return playScript(task(openscadScript(id, runId, 4 + (i % 4))), t0);
  const s = task(verilogScript(id, runId, 8, 100, 3));
  const faultAt = 12 + (i % 7);
  return playScript(
    {
      ...s,
      fault: (_e, n) =>
        n === faultAt
          ? {
              type: 'infra.failed',
              during: 'acting',
              error: {
                code: 'DOCKER_UNAVAILABLE',
                message: 'connect ENOENT /var/run/docker.sock',
                retryable: true,
              },
            }
          : null,
    },
    t0,
  );
}

/** (b) A run of `n` episodes on a fresh JetStream: append, summarize, then time both analyses. */
export async function benchAnalyze(n: number): Promise<Record<string, number>> {
  await using server = await startNatsServer({});
  const nc = await connectNats(server.url, { name: 'bench-analysis' });
  try {
    const log = await EpisodeLog.open(nc);
    const runs = await RunIndex.open(nc);
    const store = await SummaryStore.open(nc);
    const runId = 'bench-run';
    const logs = Array.from({ length: n }, (_, i) => runEpisode(i, runId));
    const ids = logs.map((l) => (l[0] as Started).episodeId);
    await runs.start(runId, {
      suite: 'bench',
      agent: 'anthropic:claude-sonnet-4',
      episodes: ids,
      startedAt: 1_796_143_448_000,
    });
    let t = performance.now();
    let events = 0;
    for (const [i, l] of logs.entries()) {
      await log.writer(ids[i]!).appendPipelined(l);
      events += l.length;
      const r = await recordSummary(log, store, ids[i]!);
      if (!r.ok) throw new Error(r.error);
      if ((i + 1) % 100 === 0 || i + 1 === n)
        process.stdout.write(
          `\r  appended + summarized ${i + 1}/${n} episodes (${events} events, ${((performance.now() - t) / 1000).toFixed(1)} s)`,
        );
    }
    process.stdout.write('\n');
    const appendS = (performance.now() - t) / 1000;

    t = performance.now();
    const loaded = await loadRun({ log, runs, summaries: store }, runId);
    const fromSummaries = analyzeRuns([runId], loaded.summaries);
    const summariesMs = performance.now() - t;
    if (loaded.refolded !== 0 || loaded.summaries.length !== n)
      throw new Error(`loadRun refolded ${loaded.refolded}`);

    t = performance.now();
    const rec = await runs.get(runId);
    const refoldedSums: EpisodeSummary[] = [];
    let readMs = 0;
    let summarizeMs = 0;
    for (const id of rec!.started.episodes) {
      let t1 = performance.now();
      const raw = await log.readRaw(id);
      const evs = raw.map((r) => decodeEvent(r.data, { subject: r.subject, seq: r.seq }));
      readMs += performance.now() - t1;
      t1 = performance.now();
      const s = summarizeEpisode(
        evs,
        raw.map((r) => r.seq),
      );
      summarizeMs += performance.now() - t1;
      if (s) refoldedSums.push(s);
    }
    const fromLogs = analyzeRuns([runId], refoldedSums);
    const refoldMs = performance.now() - t;
    if (JSON.stringify(fromLogs.overall) !== JSON.stringify(fromSummaries.overall))
      throw new Error('the two analyses disagree');
    console.log(
      `  EngiScore ${fromSummaries.overall.engiScore?.toFixed(1)} [${fromSummaries.overall.low?.toFixed(1)}, ${fromSummaries.overall.high?.toFixed(1)}], ${fromSummaries.infraErrors} infra_error, ${fromSummaries.modes.length} modes`,
    );
    return { episodes: n, events, appendS, summariesMs, refoldMs, readMs, summarizeMs };
  } finally {
    await nc.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '1000' }, episodes: { type: 'string', default: '1000' } },
  });
  const d = benchDetectors(Number(values.rounds));
  console.log(
    `detectors, ${values.rounds}-round episode (${d.events} events): detect ${ms(d.ms)} (median of 7), episodeView ${ms(d.viewMs)}`,
  );
  console.log(`  modes found: ${[...new Set(d.findings)].join(', ') || 'none'}`);
  const a = await benchAnalyze(Number(values.episodes));
  console.log(
    `analyze, ${a.episodes}-episode run (${a.events} events; append + summary took ${a.appendS!.toFixed(1)} s):`,
  );
  console.log(
    `  from summaries (loadRun + analyzeRuns)       ${ms(a.summariesMs!).padStart(12)}   target < 30,000 ms`,
  );
  console.log(
    `  refolding every log (read + summarize each)  ${ms(a.refoldMs!).padStart(12)}   ${(a.refoldMs! / a.summariesMs!).toFixed(1)}x slower`,
  );
  console.log(
    `    of which read + decode ${ms(a.readMs!)}, summarizeEpisode (fold + detect) ${ms(a.summarizeMs!)}`,
  );
}
