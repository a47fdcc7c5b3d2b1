/**
 * `engiloop events <episode>`, `engiloop results <run>`, `engiloop runs`. What they print comes from
 * sandboxes and models: tables escape control characters (`table`), `--json` is JSON with C1 and
 * bidi controls escaped too (`jsonForTerminal`), `--raw` is base64.
 */
import type { Command } from 'commander';
import type { EpisodeResult } from '../../episode/index.js';
import type { RunSummary } from '../../run/index.js';
import { summarizeEvent } from '../../replay/index.js';
import { runResults } from '../../worker/index.js';
import { CliExit, EXIT } from '../exit.js';
import { withStreams } from '../streams-env.js';
import { fmtMs, resultsReport, table } from '../table.js';
import { jsonForTerminal } from '../../terminal.js';

export function inspectCommands(program: Command): void {
  program
    .command('events')
    .description("print an episode's event log as a table, or --json")
    .argument('<episode>', 'episode id (see the results table or `engiloop results <run> --json`)')
    .option('--json', 'one JSON object per event (with stream sequence)')
    .option('--raw', 'the stored messages, one base64 line each (for fixtures and bug reports)')
    .action((id: string, o: { json?: boolean; raw?: boolean }) =>
      withStreams(async (s) => {
        const raw = await s.log.readRaw(id);
        if (raw.length === 0) {
          const near = (await s.log.listEpisodes(id.slice(0, 8))).slice(0, 5);
          throw new CliExit(
            EXIT.BAD_INPUT,
            `no events for episode "${id}"${near.length ? ` (similar: ${near.join(', ')})` : ''}`,
          );
        }
        if (o.raw) {
          for (const r of raw) console.log(Buffer.from(r.data).toString('base64'));
          return;
        }
        const events = await s.log.read(id);
        if (o.json) {
          events.forEach((e, i) => console.log(jsonForTerminal({ seq: raw[i]!.seq, ...e })));
          return;
        }
        const t0 = events[0]!.at;
        console.log(
          table(
            ['seq', 'n', '+time', 'type', 'summary'],
            events.map((e, i) => [
              String(raw[i]!.seq),
              String(i + 1),
              fmtMs(e.at - t0),
              e.type,
              summarizeEvent(e),
            ]),
          ),
        );
      }),
    );
  program
    .command('results')
    .description('print the results table and EngiScore of a run')
    .argument('<run>', 'run id printed by `engiloop run`')
    .option('--json', 'the stored results record')
    .action((runId: string, o: { json?: boolean }) =>
      withStreams(async (s) => {
        const rec = await s.runs.get(runId);
        if (!rec) throw new CliExit(EXIT.BAD_INPUT, `no run "${runId}" (list them with: engiloop runs)`);
        if (!rec.finished) {
          // Not finished yet (or finished by workers not yet recorded): results are a fold of the logs.
          const live = await runResults(s.log, rec.started.episodes);
          if (o.json)
            console.log(
              jsonForTerminal(
                { runId, complete: live.complete, results: live.results, summary: live.summary },
                2,
              ),
            );
          else {
            console.log(resultsReport(live.results, live.summary));
            if (!live.complete)
              console.log(
                `\n${rec.started.episodes.length - live.results.length} of ${rec.started.episodes.length} episode(s) still running (engiloop status ${runId})`,
              );
          }
          return;
        }
        const r = rec.finished.results as { results: EpisodeResult[]; summary: RunSummary };
        if (o.json) console.log(jsonForTerminal(rec.finished.results, 2));
        else console.log(resultsReport(r.results, r.summary));
      }),
    );
  program
    .command('runs')
    .description('list recorded runs, newest first')
    .action(() =>
      withStreams(async (s) => {
        const ids = await s.runs.list();
        const rows: string[][] = [];
        for (const id of ids.slice(0, 50)) {
          const r = await s.runs.get(id);
          if (!r) continue;
          const sum = (r.finished?.results as { summary?: RunSummary } | undefined)?.summary;
          rows.push([
            id,
            new Date(r.started.startedAt).toISOString(),
            r.started.suite,
            r.started.agent,
            String(r.started.episodes.length),
            sum?.engiScore == null ? (r.finished ? '—' : 'running') : sum.engiScore.toFixed(1),
          ]);
        }
        console.log(table(['run', 'started', 'suite', 'agent', 'episodes', 'EngiScore'], rows));
      }),
    );
}
