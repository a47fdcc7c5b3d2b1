/**
 * `engiloop fork <episode> --at <round> --agent <spec>`: a new episode from the original's state at
 * the end of a round (restored workspaces, folded history, the same task), continued by another
 * agent. It is recorded as a run of one episode (`fork of <episode>@<round>`), with its parent in
 * its log, so `runs`, `results`, `analyze` and `provenance` show where it came from.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { recordSummary } from '../../analysis/index.js';
import { AgentError, createAgent } from '../../agents/index.js';
import { episodeId, forkEpisode, lastForkableRound, RunError, summarize } from '../../run/index.js';
import { jsonForTerminal } from '../../terminal.js';
import { CliExit, EXIT, wholeNumber } from '../exit.js';
import { findTask } from '../find-task.js';
import { ProgressView } from '../progress.js';
import { withRunEnv } from '../run-env.js';
import { withStreams } from '../streams-env.js';
import { resultsReport } from '../table.js';

interface ForkFlags {
  at: string;
  agent: string;
  tasks: string;
  json?: boolean;
}

export function forkCommand(program: Command): void {
  program
    .command('fork')
    .description("start a new episode from an episode's state at a round and continue it with another agent")
    .argument('<episode>', 'episode id (see `engiloop results <run>`)')
    .requiredOption('--at <round>', 'the round whose end the fork starts from (0: before the first round)')
    .option(
      '--agent <spec>',
      'who plays from round <at>+1: scripted, scripted:<defect>, openai:<model>, …',
      'scripted',
    )
    .option('--tasks <dir>', 'where to find the task folder (verifiers read it)', 'tasks')
    .option('--json', 'the results record as JSON on stdout')
    .addHelpText(
      'after',
      '\nExit codes: 0 the fork ran (whatever it scored), 1 infra_error, 2 bad input, 3 NATS or Docker unusable.',
    )
    .action(async (id: string, f: ForkFlags) => {
      const at = wholeNumber('at', f.at, 0);
      const events = await withStreams((s) => s.log.read(id));
      if (events.length === 0)
        throw new CliExit(EXIT.BAD_INPUT, `no events for episode "${id}" (see engiloop results <run>)`);
      const last = lastForkableRound(events);
      if (at > last)
        throw new CliExit(
          EXIT.BAD_INPUT,
          `--at ${at}: episode ${id} can be forked at a round from 0 to ${last} (the last round whose actions ran)`,
        );
      const lt = await findTask(f.tasks, events);
      let agent;
      try {
        agent = createAgent(f.agent, lt);
      } catch (e) {
        if (e instanceof AgentError) throw new CliExit(EXIT.BAD_INPUT, e.message);
        throw e;
      }
      await withRunEnv(async ({ streams, deps, runId, runDir, signal }) => {
        const forkId = episodeId(runId, lt.task.id, 1);
        const suite = `fork of ${id}@${at}`;
        await streams.runs.start(runId, { suite, agent: f.agent, episodes: [forkId], startedAt: Date.now() });
        console.error(`run ${runId}: ${suite}, agent ${f.agent} from round ${at + 1} — episode ${forkId}`);
        const view = new ProgressView();
        const result = await forkEpisode(lt, streams.log, deps, {
          events,
          at,
          episodeId: forkId,
          runId,
          agentSpec: f.agent,
          agent,
          artifactsDir: join(runDir, forkId, 'artifacts'),
          signal,
          onProgress: (p) => view.update(p),
        }).catch((e: unknown) => {
          if (e instanceof RunError) throw new CliExit(EXIT.BAD_INPUT, e.message);
          throw e;
        });
        view.close();
        const s = await recordSummary(streams.log, streams.summaries, forkId);
        if (!s.ok) console.error(`engiloop: no summary for ${forkId}: ${s.error}`);
        const summary = summarize([result]);
        const record = {
          runId,
          suite,
          agent: f.agent,
          parent: { episodeId: id, round: at },
          results: [result],
          summary,
        };
        await streams.runs.finish(runId, record);
        await mkdir(runDir, { recursive: true });
        await writeFile(join(runDir, 'results.json'), jsonForTerminal(record, 2));
        const say = f.json ? console.error : console.log;
        say(resultsReport([result], summary));
        say(
          `\nfork ${forkId} of ${id} at round ${at} — analyze: engiloop analyze ${forkId}; parent: engiloop analyze ${id}`,
        );
        if (f.json) process.stdout.write(jsonForTerminal(record, 2) + '\n');
        process.exitCode = result.status === 'infra_error' ? EXIT.INFRA : EXIT.OK;
      });
    });
}
