/** `engiloop run <task-dir|suite-dir>`: runs episodes with live progress, then the results table. */
import { jsonForTerminal } from '../../terminal.js';
import { MAX_HISTORY_WINDOW } from '../../../tasks/index.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { recordSummary } from '../../analysis/index.js';
import { planEpisodes, runSuite } from '../../run/index.js';
import { EXIT, wholeNumber } from '../exit.js';
import { loadRunTasks } from '../run-tasks.js';
import { ProgressView } from '../progress.js';
import { withRunEnv } from '../run-env.js';
import { resultsReport } from '../table.js';

interface RunFlags {
  agent: string;
  concurrency: string;
  repeat: string;
  json?: string | boolean;
  historyWindow?: string;
}

export function runCommand(program: Command): void {
  program
    .command('run')
    .description('run episodes of a task or a suite of tasks, each in its own sandboxes')
    .argument('<path>', 'task folder (with task.yaml) or suite folder')
    .option(
      '-a, --agent <spec>',
      'agent: "scripted" (the reference), "scripted:<defect|alternative>", "openai:<model>" or "anthropic:<model>"',
      'scripted',
    )
    .option('--history-window <n>', "rounds of history the agent sees (default: the task's, 15 unless set)")
    .option('-c, --concurrency <n>', 'episodes at once', '1')
    .option('-r, --repeat <k>', 'episodes per task', '1')
    .option('--json [file]', 'write machine-readable results to stdout, or to a file')
    .addHelpText(
      'after',
      '\nExit codes: 0 all episodes ran (whatever they scored), 1 an episode ended in infra_error,\n2 bad input, 3 NATS or Docker unusable.',
    )
    .action(async (path: string, f: RunFlags) => {
      const concurrency = wholeNumber('concurrency', f.concurrency);
      const repeat = wholeNumber('repeat', f.repeat);
      const { tasks, errors } = await loadRunTasks(path, f.agent, {
        ...(f.historyWindow === undefined
          ? {}
          : { historyWindow: wholeNumber('history-window', f.historyWindow, 1, MAX_HISTORY_WINDOW) }),
      });

      await withRunEnv(async ({ streams, deps, runId, runDir, signal }) => {
        const plan = planEpisodes(runId, tasks, repeat);
        await streams.runs.start(runId, {
          suite: path,
          agent: f.agent,
          episodes: plan.map((p) => p.episodeId),
          startedAt: Date.now(),
        });
        console.error(
          `run ${runId}: ${plan.length} episode(s), agent ${f.agent}, concurrency ${concurrency} — events in ${streams.where}`,
        );
        const view = new ProgressView();
        const run = await runSuite(tasks, deps, {
          runId,
          agent: f.agent,
          concurrency,
          repeat,
          runDir,
          signal,
          onProgress: (p) => view.update(p),
          onEpisodeEnd: async (r) => {
            const s = await recordSummary(streams.log, streams.summaries, r.episodeId);
            if (!s.ok)
              console.error(
                `engiloop: no summary for ${r.episodeId} (analyze will refold its log): ${s.error}`,
              );
          },
        });
        view.close();
        const record = {
          runId,
          suite: path,
          agent: f.agent,
          results: run.results,
          summary: run.summary,
          invalidTasks: errors.map((e) => e.message),
        };
        await streams.runs.finish(runId, record);
        await mkdir(runDir, { recursive: true });
        await writeFile(join(runDir, 'results.json'), jsonForTerminal(record, 2));
        // With --json on stdout, the table goes to stderr so stdout stays parseable.
        const say = f.json === true ? console.error : console.log;
        console.error('');
        say(resultsReport(run.results, run.summary));
        say(
          `\nrun ${runId} — results: engiloop results ${runId}; report: engiloop report ${runId} --out <dir>; events: engiloop events <episode>; artifacts: ${runDir}`,
        );
        if (f.json === true) process.stdout.write(jsonForTerminal(record, 2) + '\n');
        else if (typeof f.json === 'string') await writeFile(f.json, jsonForTerminal(record, 2));
        process.exitCode = errors.length
          ? EXIT.BAD_INPUT
          : run.summary.byStatus['infra_error']
            ? EXIT.INFRA
            : EXIT.OK;
      });
    });
}
