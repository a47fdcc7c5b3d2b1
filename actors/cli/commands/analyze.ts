/**
 * `engiloop analyze <run|episode>...` and `engiloop compare <runA> <runB>`: failure modes, run
 * statistics and run comparison, from the episode summaries (refolding a log only where one is
 * missing). What they print comes from agents: tables escape control characters, --json is JSON
 * with controls escaped.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import {
  analyzeRuns,
  compareRuns,
  detect,
  episodeView,
  isStatsError,
  judgeEpisode,
  loadRun,
  summarizeEpisode,
  traceEpisode,
  traceEveryRound,
  traceReport,
  type JudgeResult,
  type LoadedRun,
} from '../../analysis/index.js';
import { AgentError } from '../../agents/index.js';
import { decodeEvent } from '../../../streams/index.js';
import { jsonForTerminal } from '../../terminal.js';
import { analysisReport, comparisonReport, episodeReport } from '../analysis-report.js';
import { CliExit, EXIT, wholeNumber } from '../exit.js';
import { findTask } from '../find-task.js';
import { withRunEnv } from '../run-env.js';
import { withStreams, type StreamsEnv } from '../streams-env.js';

interface AnalyzeFlags {
  json?: boolean;
  repeat?: string;
  judge?: string;
  trace?: boolean;
  everyRound?: boolean;
  tasks: string;
}

async function load(s: StreamsEnv, runId: string): Promise<LoadedRun> {
  const r = await loadRun(s, runId, (done, total) => {
    if (done === 1 || done === total || done % 50 === 0)
      process.stderr.write(`${runId}: rebuilding ${done}/${total} missing summaries from the logs\n`);
  });
  return r;
}

function notes(runs: readonly LoadedRun[]): string[] {
  return runs.flatMap((r) => [
    ...(r.refolded
      ? [`${r.runId}: ${r.refolded} summary(ies) rebuilt from the logs (stored for next time)`]
      : []),
    ...(r.pending.length ? [`${r.runId}: ${r.pending.length} episode(s) still running, left out`] : []),
  ]);
}

async function episode(s: StreamsEnv, id: string, o: { json?: boolean; judge?: string }): Promise<void> {
  const raw = await s.log.readRaw(id);
  const events = raw.map((r) => decodeEvent(r.data, { subject: r.subject, seq: r.seq }));
  const view = episodeView(
    events,
    raw.map((r) => r.seq),
  );
  const findings = detect(view);
  // From the events already read (no second read of the log).
  const summary = summarizeEpisode(
    events,
    raw.map((r) => r.seq),
  );
  let judge: JudgeResult | null = null;
  if (o.judge) {
    try {
      judge = await judgeEpisode(view, findings, { spec: o.judge, blobs: s.blobs });
    } catch (e) {
      if (e instanceof AgentError)
        throw new CliExit(
          e.code === 'AGENT_UNKNOWN' || e.code === 'AGENT_KEY_MISSING' ? EXIT.BAD_INPUT : EXIT.ENV,
          `--judge ${o.judge}: ${e.message}`,
        );
      throw e;
    }
    // Stored with the summary, apart from the deterministic modes.
    if (summary)
      await s.summaries.put({
        ...summary,
        judge: {
          spec: o.judge,
          added: judge.added,
          rejected: judge.rejected,
          unreadable: judge.unreadable,
          call: judge.call,
        },
      });
  }
  if (o.json) console.log(jsonForTerminal({ episodeId: id, summary, findings, judge }, 2));
  else console.log(episodeReport(summary, id, findings, judge));
}

/** `analyze <episode> --trace [--every-round]`: the verdict trace of one episode. */
async function trace(id: string, o: { json: boolean; everyRound: boolean; tasks: string }): Promise<void> {
  await withRunEnv(async ({ streams, deps, runId, runDir, signal }) => {
    const read = async (e: string) => {
      const raw = await streams.log.readRaw(e);
      return {
        events: raw.map((r) => decodeEvent(r.data, { subject: r.subject, seq: r.seq })),
        seqs: raw.map((r) => r.seq),
      };
    };
    const { events, seqs } = await read(id);
    if (events.length === 0)
      throw new CliExit(EXIT.BAD_INPUT, `no episode "${id}" (list runs with: engiloop runs)`);
    const lt = await findTask(o.tasks, events);
    const onProgress = (done: number, total: number) =>
      process.stderr.write(`re-verifying ${done}/${total}\n`);
    const t = o.everyRound
      ? await traceEveryRound(events, lt, deps, {
          episodeId: `${runId}-trace`,
          runId,
          artifactsDir: join(runDir, 'trace', 'artifacts'),
          read,
          signal,
          onProgress,
        })
      : await traceEpisode(events, seqs, lt, deps, { signal, onProgress });
    console.log(o.json ? jsonForTerminal(t, 2) : traceReport(t));
  });
}

export function analyzeCommands(program: Command): void {
  program
    .command('analyze')
    .description(
      "failure modes and statistics of runs (EngiScore with a 95 % CI, breakdowns, pass@k), or one episode's failure modes with the events that show them",
    )
    .argument('<id...>', 'run ids (see `engiloop runs`), or one episode id')
    .option('--json', 'the analysis as JSON')
    .option(
      '--judge <spec>',
      'one episode: also ask a model (openai:<model>, anthropic:<model>) for modes the detectors did not find; it never overrides them (off by default)',
    )
    .option(
      '--trace',
      "one episode: re-verify its deliverables at every workspace snapshot and show each criterion's verdict over the rounds",
    )
    .option(
      '--every-round',
      'with --trace: re-execute the episode with a snapshot after every round and trace that',
    )
    .option('--tasks <dir>', 'with --trace: where to find the task folder', 'tasks')
    .option(
      '--repeat <k>',
      'pass@k and pass^k with this k (each task needs at least k scored episodes: run with --repeat)',
    )
    .addHelpText(
      'after',
      '\nFailure modes are listed in README.md ("Failure analysis"). Exit 2 for an unknown id or a k larger than the repeats.',
    )
    .action(async (ids: string[], o: AnalyzeFlags) => {
      if (o.trace || o.everyRound) {
        if (ids.length !== 1) throw new CliExit(EXIT.BAD_INPUT, '--trace takes one episode id');
        return trace(ids[0]!, { json: o.json === true, everyRound: o.everyRound === true, tasks: o.tasks });
      }
      return withStreams(async (s) => {
        const k = o.repeat === undefined ? undefined : wholeNumber('repeat', o.repeat);
        const runs: LoadedRun[] = [];
        for (const id of ids) {
          if (await s.runs.get(id)) runs.push(await load(s, id));
          else if (ids.length === 1 && (await s.log.readRaw(id)).length > 0) return episode(s, id, o);
          else
            throw new CliExit(
              EXIT.BAD_INPUT,
              `"${id}" is neither a run nor an episode (list runs with: engiloop runs)`,
            );
        }
        try {
          const a = analyzeRuns(
            ids,
            runs.flatMap((r) => r.summaries),
            k === undefined ? {} : { repeat: k },
          );
          if (o.json)
            console.log(
              jsonForTerminal(
                {
                  ...a,
                  refolded: runs.reduce((n, r) => n + r.refolded, 0),
                  pending: runs.flatMap((r) => r.pending),
                },
                2,
              ),
            );
          else console.log(analysisReport(a, notes(runs)));
        } catch (e) {
          if (isStatsError(e)) throw new CliExit(EXIT.BAD_INPUT, e.message);
          throw e;
        }
      });
    });
  program
    .command('compare')
    .description(
      'two runs side by side: per-task deltas, flips, paired bootstrap and McNemar tests, failure-mode mix',
    )
    .argument('<runA>', 'the baseline run')
    .argument('<runB>', 'the run compared with it')
    .option('--json', 'the comparison as JSON')
    .action((a: string, b: string, o: { json?: boolean }) =>
      withStreams(async (s) => {
        for (const id of [a, b])
          if (!(await s.runs.get(id)))
            throw new CliExit(EXIT.BAD_INPUT, `no run "${id}" (list them with: engiloop runs)`);
        const [ra, rb] = [await load(s, a), await load(s, b)];
        const c = compareRuns(a, ra.summaries, b, rb.summaries);
        if (o.json) console.log(jsonForTerminal(c, 2));
        else console.log([...notes([ra, rb]), comparisonReport(c)].join('\n'));
      }),
    );
}
