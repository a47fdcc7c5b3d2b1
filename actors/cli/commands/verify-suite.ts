/** `engiloop tasks verify-suite [dir]`: reference passes, defects fail as named, alternatives pass. */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadSuite } from '../../../tasks/index.js';
import { planChecks, suiteEpisodeId, summarize, verifySuite } from '../../run/index.js';
import { CliExit, EXIT, wholeNumber } from '../exit.js';
import { ProgressView } from '../progress.js';
import { withRunEnv } from '../run-env.js';
import { fmtMs, table } from '../table.js';
import { verifierRules } from '../../../verifiers/index.js';

export function verifySuiteCommand(tasks: Command): void {
  tasks
    .command('verify-suite')
    .description(
      'play every reference, defect and alternative solution end to end and check each verdict; exit 1 on any surprise',
    )
    .argument('[dir]', 'task or suite folder', 'tasks')
    .option('-c, --concurrency <n>', 'episodes at once', '2')
    .option('--json [file]', 'write the checks as JSON to stdout or a file')
    .option('--strict', 'a defect must fail exactly the criteria it names, no others')
    .addHelpText(
      'after',
      '\nExit codes: 0 every check as expected, 1 a surprise (or an infra_error), 2 bad input.',
    )
    .action(async (dir: string, o: { concurrency: string; json?: string | boolean; strict?: boolean }) => {
      const concurrency = wholeNumber('concurrency', o.concurrency);
      const { tasks, errors } = await loadSuite(dir, { verifiers: verifierRules });
      for (const e of errors) console.error(`invalid task: ${e.message}`);
      if (tasks.length === 0) throw new CliExit(EXIT.BAD_INPUT, `no valid task in ${dir}`);
      const t0 = Date.now();
      const results = await withRunEnv(async ({ streams, deps, runId, runDir, signal }) => {
        const checks = planChecks(tasks);
        // Recorded like any run, so `engiloop runs` lists it and `engiloop results <id>` shows it.
        await streams.runs.start(runId, {
          suite: dir,
          agent: 'verify-suite (scripted reference, defects, alternatives)',
          episodes: checks.map((c, i) => suiteEpisodeId(runId, c, i)),
          startedAt: Date.now(),
        });
        console.error(`verify-suite ${runId}: ${checks.length} checks over ${tasks.length} task(s)`);
        const view = new ProgressView();
        const r = await verifySuite(tasks, deps, {
          strict: o.strict ?? false,
          runId,
          runDir,
          concurrency,
          signal,
          onProgress: (p) => view.update(p),
        });
        view.close();
        const episodes = r.map((x) => x.result);
        await streams.runs.finish(runId, {
          runId,
          suite: dir,
          agent: 'verify-suite',
          results: episodes,
          summary: summarize(episodes),
          checks: r.map(({ result, ...c }) => ({ ...c, episodeId: result.episodeId })),
          invalidTasks: errors.map((e) => e.message),
        });
        console.error(`recorded as run ${runId}: engiloop results ${runId}`);
        return r;
      });
      const say = o.json === true ? console.error : console.log;
      say(
        table(
          ['task', 'variant', 'expect', 'status', 'score', 'failed criteria', 'time', 'result'],
          results.map((r) => [
            r.taskId,
            r.variant,
            r.expect,
            r.result.status,
            r.result.score === null ? '—' : r.result.score.toFixed(3),
            r.failed.join(' ') || '-',
            fmtMs(r.result.durationMs),
            r.ok ? 'ok' : `SURPRISE: ${r.surprise}`.slice(0, 120),
          ]),
        ),
      );
      const surprises = results.filter((r) => !r.ok).length;
      say(
        `\n${results.length} checks, ${surprises} surprise(s), ${errors.length} invalid task(s), ${fmtMs(Date.now() - t0)}`,
      );
      const json = JSON.stringify(
        results.map(({ result, ...r }) => ({
          ...r,
          episodeId: result.episodeId,
          status: result.status,
          score: result.score,
          verdicts: result.verdicts,
        })),
        null,
        2,
      );
      if (o.json === true) process.stdout.write(json + '\n');
      else if (typeof o.json === 'string') await writeFile(o.json, json);
      process.exitCode = errors.length ? EXIT.BAD_INPUT : surprises ? EXIT.INFRA : EXIT.OK;
    });
}
