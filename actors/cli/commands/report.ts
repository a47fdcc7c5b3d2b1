/**
 * `engiloop report <run...> --out <dir>` (a static site that opens from file://) and
 * `engiloop view [<run...>]` (the same pages on localhost, live while episodes run).
 */
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { hasCode } from '../../../core/index.js';
import { traceEpisode } from '../../analysis/index.js';
import { serveLive, writeReport, type TraceEpisodeFn } from '../../report/index.js';
import type { LoadedTask } from '../../../tasks/index.js';
import { findTask } from '../find-task.js';
import { withRunEnv } from '../run-env.js';
import { CliExit, EXIT, onInterrupt, wholeNumber } from '../exit.js';
import { withStreams, type StreamsEnv } from '../streams-env.js';

const VERSION = '0.1.0';

/** An unknown run id is the user's input (exit 2), not the environment. */
function badRun(e: unknown): never {
  if (hasCode(e, 'UNKNOWN_ID')) throw new CliExit(EXIT.BAD_INPUT, e.message);
  if (hasCode(e, 'OUT_NOT_EMPTY') || hasCode(e, 'PORT_UNAVAILABLE'))
    throw new CliExit(EXIT.BAD_INPUT, e.message);
  throw e;
}

export function reportCommands(program: Command): void {
  program
    .command('report')
    .description(
      'write a static report of runs: overview, task × agent grid, every episode round by round, failure modes, search; opens from file:// with no server and no network',
    )
    .argument('<run...>', 'run ids (see `engiloop runs`); two runs are also compared side by side')
    .requiredOption('--out <dir>', 'folder to write (new, empty, or an earlier report, which is replaced)')
    .option(
      '--trace',
      're-verify each episode that did not pass at every workspace snapshot, for its verdict trace over the rounds (needs Docker and the task folders; default: the recorded stage checks)',
    )
    .option('--tasks <dir>', 'with --trace: where the task folders are', 'tasks')
    .addHelpText(
      'after',
      '\nOpen <dir>/index.html in a browser. Exit 2 for an unknown run or a folder that is not a report.',
    )
    .action(async (runs: string[], o: { out: string; trace?: boolean; tasks: string }) => {
      const write = async (s: StreamsEnv, trace?: TraceEpisodeFn) => {
        const t0 = performance.now();
        let last = 0;
        const w = await writeReport(s, runs, o.out, {
          engiloop: VERSION,
          onProgress: (done, total) => {
            const now = performance.now();
            if (done === total || now - last > 1_000) {
              last = now;
              process.stderr.write(`report: ${done}/${total} episodes\n`);
            }
          },
          ...(trace ? { trace, warn: (line: string) => console.error(`warning: ${line}`) } : {}),
        }).catch(badRun);
        const mib = (w.bytes / 2 ** 20).toFixed(1);
        console.error(
          `report: ${w.episodes} episodes, ${w.files} files, ${mib} MiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
        console.log(pathToFileURL(w.index).href);
      };
      if (!o.trace) return withStreams((s) => write(s));
      return withRunEnv(async ({ streams, deps, signal }) => {
        const tasks = new Map<string, Promise<LoadedTask>>();
        return write(streams, async (events, seqs) => {
          const start = events[0];
          if (start?.type !== 'episode.started') return null;
          let lt = tasks.get(start.task.id);
          if (!lt) tasks.set(start.task.id, (lt = findTask(o.tasks, events)));
          process.stderr.write(`report: re-verifying ${start.episodeId} at its snapshots\n`);
          return traceEpisode(events, seqs, await lt, deps, { signal });
        });
      });
    });

  program
    .command('view')
    .description('serve the report of runs on localhost and update it live as episodes run (from JetStream)')
    .argument('[run...]', 'run ids; none: the newest run, and each run that starts while it serves')
    .option('--port <n>', 'port on 127.0.0.1 (0: any free port)', '8765')
    .addHelpText('after', '\nStop with Ctrl-C. Exit 2 for an unknown run or a port in use.')
    .action(async (runs: string[], o: { port: string }) =>
      withStreams(async (s) => {
        const port = wholeNumber('port', o.port, 0, 65_535);
        const live = await serveLive(s, runs, {
          port,
          engiloop: VERSION,
          log: (line) => console.error(line),
        }).catch(badRun);
        console.log(live.url);
        console.error(
          `view: serving ${runs.length ? runs.join(', ') : 'the newest run'} live; Ctrl-C to stop`,
        );
        const stop = onInterrupt('view: stopping');
        await new Promise<void>((ok) => stop.signal.addEventListener('abort', () => ok(), { once: true }));
        stop.dispose();
        await live.close();
      }),
    );
}
