/**
 * `engiloop replay <episode>`: fold mode (no Docker, no agent) with a terminal viewer, or
 * `--execute` (a fresh sandbox and the recorded agent outputs, every observation compared).
 * Every view escapes control characters of the recorded text; `--json` is JSON (`jsonForTerminal`).
 */
import { emitKeypressEvents } from 'node:readline';
import type { Command } from 'commander';
import type { EpisodeEvent } from '../../../streams/index.js';
import { stateName } from '../../../machines/index.js';
import {
  buildTimeline,
  isReplayDivergence,
  readEventsFile,
  renderRound,
  renderSummary,
  replayExecute,
  type Timeline,
} from '../../replay/index.js';
import { CliExit, EXIT } from '../exit.js';
import { findTask } from '../find-task.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withRunEnv } from '../run-env.js';
import { withStreams } from '../streams-env.js';
import { fmtMs } from '../table.js';
import { escapeForTerminal, jsonForTerminal } from '../../terminal.js';

interface ReplayFlags {
  json?: boolean;
  round?: string;
  list?: boolean;
  file?: boolean;
  execute?: boolean;
  tasks: string;
  maxPixelDiff?: string;
  screenshots?: string;
}

async function loadEvents(id: string, fromFile: boolean): Promise<EpisodeEvent[]> {
  if (fromFile) return readEventsFile(id);
  return withStreams(async (s) => {
    const events = await s.log.read(id);
    if (events.length === 0) throw new CliExit(EXIT.BAD_INPUT, `no events for episode "${id}"`);
    return events;
  });
}

/** Interactive viewer: n/→ next, p/← previous, g + number + Enter go to round, q quit. */
async function browse(tl: Timeline, start: number): Promise<void> {
  let i = start;
  let typed: string | null = null;
  const draw = () => {
    process.stdout.write('\x1b[2J\x1b[H');
    console.log(renderRound(tl, i, process.stdout.columns ?? 100));
    console.log(
      `\n[n]ext  [p]revious  [g]o to round${typed !== null ? ` ${typed}_` : ''}  [q]uit   (round ${i + 1}/${tl.rounds.length})`,
    );
  };
  emitKeypressEvents(process.stdin);
  process.stdin.setRawMode(true);
  draw();
  await new Promise<void>((resolve) => {
    process.stdin.on('keypress', (str: string | undefined, key: { name?: string; ctrl?: boolean }) => {
      if (typed !== null) {
        if (key.name === 'return') {
          const n = Number(typed);
          if (Number.isInteger(n) && n >= 1 && n <= tl.rounds.length) i = n - 1;
          typed = null;
        } else if (str && /\d/.test(str)) typed += str;
        else typed = null;
      } else if (key.name === 'q' || (key.ctrl && key.name === 'c')) return resolve();
      else if (key.name === 'n' || key.name === 'right' || key.name === 'down')
        i = Math.min(tl.rounds.length - 1, i + 1);
      else if (key.name === 'p' || key.name === 'left' || key.name === 'up') i = Math.max(0, i - 1);
      else if (key.name === 'g') typed = '';
      draw();
    });
  });
  process.stdin.setRawMode(false);
  process.stdin.pause();
}

export function replayCommand(program: Command): void {
  program
    .command('replay')
    .description('step through an episode from its log (fold mode), or re-execute it and compare (--execute)')
    .argument(
      '<episode>',
      'episode id, or a file of stored messages with --file (`engiloop events <id> --raw`)',
    )
    .option('--json', 'fold mode: every round as JSON; --execute: the report as JSON')
    .option('--round <n>', 'fold mode: show round n and exit')
    .option('--list', 'fold mode: one line per round')
    .option('--file', 'read the episode from a file instead of NATS')
    .option(
      '--execute',
      're-execute in a fresh sandbox with the recorded agent outputs and compare each observation',
    )
    .option('--tasks <dir>', 'with --execute: where to find the task folder', 'tasks')
    .option(
      '--screenshots <dir>',
      "fold mode: also write each round's screenshot (GUI episodes) as <dir>/round-N.png",
    )
    .option(
      '--max-pixel-diff <fraction>',
      'with --execute on a GUI episode: share of pixels a screenshot may differ by (default 0.01)',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 deterministic / identical, 1 replay diverged (names the round), 2 bad input, 3 NATS or Docker unusable.',
    )
    .action(async (id: string, f: ReplayFlags) => {
      const events = await loadEvents(id, f.file ?? false);
      if (f.execute) {
        const maxPixelDiff = f.maxPixelDiff === undefined ? undefined : Number(f.maxPixelDiff);
        if (maxPixelDiff !== undefined && !(maxPixelDiff >= 0 && maxPixelDiff <= 1))
          throw new CliExit(
            EXIT.BAD_INPUT,
            `--max-pixel-diff: expected a fraction in [0, 1], got "${f.maxPixelDiff}"`,
          );
        const lt = await findTask(f.tasks, events);
        const report = await withRunEnv(async ({ streams, deps, runId, runDir }) =>
          replayExecute(events, lt, deps, {
            read: (e) => streams.log.read(e),
            episodeId: `${runId}-replay`,
            runId,
            artifactsDir: `${runDir}/replay/artifacts`,
            ...(maxPixelDiff === undefined ? {} : { maxPixelDiff }),
          }),
        );
        if (f.json) console.log(jsonForTerminal(report, 2));
        else {
          console.log(
            `replayed as ${report.replay.episodeId}: ${report.roundsCompared} round(s) compared; original ${fmtMs(report.originalMs)}, replay ${fmtMs(report.replay.durationMs)}`,
          );
          if (report.firstDivergence)
            console.log(
              escapeForTerminal(
                `DIVERGED at round ${report.firstDivergence.round} (${report.firstDivergence.what}):\n${report.firstDivergence.diff}`,
                { multiline: true },
              ),
            );
          else console.log('verdict: identical (after blanking volatile parts)');
          if (report.screenshots.length)
            console.log(
              `screenshots: ${report.screenshots.length} compared, largest difference ${(Math.max(...report.screenshots.map((x) => x.diff)) * 100).toFixed(2)} % of pixels`,
            );
        }
        process.exitCode = report.verdict === 'identical' ? EXIT.OK : EXIT.INFRA;
        return;
      }
      let tl: Timeline;
      try {
        tl = buildTimeline(events);
      } catch (e) {
        if (isReplayDivergence(e)) {
          console.error(`engiloop: ${e.message}`);
          process.exitCode = EXIT.INFRA;
          return;
        }
        throw e;
      }
      if (f.screenshots) {
        const dir = f.screenshots;
        const shots = events.filter(
          (e): e is Extract<EpisodeEvent, { type: 'observation.recorded' }> =>
            e.type === 'observation.recorded' && e.screenshot !== undefined,
        );
        if (shots.length === 0)
          throw new CliExit(EXIT.BAD_INPUT, `episode ${id} has no screenshots (not a GUI episode)`);
        await mkdir(dir, { recursive: true });
        await withStreams(async (s) => {
          for (const o of shots)
            await writeFile(join(dir, `round-${o.round}.png`), await s.blobs.get(o.screenshot!));
        });
        console.error(`wrote ${shots.length} screenshot(s) to ${dir}`);
      }
      const head = `${events.length} events, ${tl.rounds.length} rounds, final state ${stateName(tl.final)}; ${tl.checked} state digest(s) checked: deterministic`;
      if (f.json) {
        console.log(
          jsonForTerminal(
            {
              events: events.length,
              checked: tl.checked,
              finalState: stateName(tl.final),
              rounds: tl.rounds,
            },
            2,
          ),
        );
      } else if (f.round !== undefined) {
        const n = Number(f.round);
        if (!Number.isInteger(n) || n < 1 || n > tl.rounds.length)
          throw new CliExit(EXIT.BAD_INPUT, `--round must be 1..${tl.rounds.length}`);
        console.log(renderRound(tl, n - 1));
      } else if (f.list || !process.stdin.isTTY || !process.stdout.isTTY || tl.rounds.length === 0) {
        console.log(`${head}\n${renderSummary(tl)}`);
      } else {
        await browse(tl, 0);
        console.log(head);
      }
    });
}
