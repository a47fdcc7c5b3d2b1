/** `engiloop provenance <episode>`: the artifact graph of an episode, as text, JSON or Graphviz. */
import { jsonForTerminal } from '../../terminal.js';
import type { Command } from 'commander';
import type { EpisodeEvent } from '../../../streams/index.js';
import { provenance, renderDot, renderProvenance } from '../../provenance/index.js';
import { readEventsFile } from '../../replay/index.js';
import { CliExit, EXIT } from '../exit.js';
import { withStreams } from '../streams-env.js';

export function provenanceCommand(program: Command): void {
  program
    .command('provenance')
    .description(
      "print an episode's artifact graph: which round of which app produced each artifact, the hand-offs between apps, the verdict at each node, and where the chain broke",
    )
    .argument('<episode>', 'episode id (or a file of events with --file)')
    .option('--dot', 'Graphviz DOT instead of text (pipe to `dot -Tsvg`)')
    .option('--json', 'the graph as JSON')
    .option('--file', 'read the episode from a file written by `engiloop events --raw` instead of NATS')
    .addHelpText(
      'after',
      '\nExit codes: 0 printed, 2 no such episode or not an episode log, 3 NATS unreachable.',
    )
    .action(async (id: string, o: { dot?: boolean; json?: boolean; file?: boolean }) => {
      const events: EpisodeEvent[] = o.file
        ? await readEventsFile(id)
        : await withStreams(async (s) => s.log.read(id));
      if (events.length === 0) throw new CliExit(EXIT.BAD_INPUT, `no events for episode "${id}"`);
      let g;
      try {
        g = provenance(events);
      } catch (e) {
        throw new CliExit(EXIT.BAD_INPUT, `${id}: ${(e as Error).message}`);
      }
      console.log(o.dot ? renderDot(g) : o.json ? jsonForTerminal(g, 2) : renderProvenance(g));
    });
}
