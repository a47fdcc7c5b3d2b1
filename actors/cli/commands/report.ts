/**
 * `engiloop report <run...> --out <dir>` (a static site that opens from file://) and
 * `engiloop view [<run...>]` (the same pages on localhost, live while episodes run).
 */
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { hasCode } from '../../../core/index.js';
import { serveLive, writeReport } from '../../report/index.js';
import { CliExit, EXIT, onInterrupt, wholeNumber } from '../exit.js';
import { withStreams } from '../streams-env.js';

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
    .addHelpText(
      'after',
      '\nOpen <dir>/index.html in a browser. Exit 2 for an unknown run or a folder that is not a report.',
    )
    .action(async (runs: string[], o: { out: string }) =>
      withStreams(async (s) => {
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
        }).catch(badRun);
        const mib = (w.bytes / 2 ** 20).toFixed(1);
        console.error(
          `report: ${w.episodes} episodes, ${w.files} files, ${mib} MiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
        console.log(pathToFileURL(w.index).href);
      }),
    );

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
