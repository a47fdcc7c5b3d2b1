#!/usr/bin/env node
/** The `engiloop` command. Every subcommand has --help; exit codes are in `exit.ts`. */
import { Command, CommanderError } from 'commander';
import { EngiloopError } from '../../core/index.js';
import { isTaskLoadError } from '../../tasks/index.js';
import { initTelemetry } from '../telemetry.js';
import { analyzeCommands } from './commands/analyze.js';
import { distributedCommands } from './commands/distributed.js';
import { forkCommand } from './commands/fork.js';
import { gcCommand } from './commands/gc.js';
import { inspectCommands } from './commands/inspect.js';
import { mcpCommand } from './commands/mcp.js';
import { miscCommands } from './commands/misc.js';
import { provenanceCommand } from './commands/provenance.js';
import { replayCommand } from './commands/replay.js';
import { reportCommands } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { tasksCommands } from './commands/tasks.js';
import { verifySuiteCommand } from './commands/verify-suite.js';
import { CliExit, EXIT } from './exit.js';

const program = new Command()
  .name('engiloop')
  .description(
    'Benchmark AI agents on real engineering software: event-sourced episodes in Docker sandboxes.',
  )
  .version('0.1.0')
  .showHelpAfterError()
  .exitOverride()
  .addHelpText(
    'after',
    '\nEnvironment: NATS_URL (default: an embedded nats-server, store in $ENGILOOP_HOME/nats),\nDOCKER_HOST (default: the local socket), ENGILOOP_HOME (default ~/.engiloop), OTEL_* (telemetry).',
  );
runCommand(program);
verifySuiteCommand(tasksCommands(program));
inspectCommands(program);
replayCommand(program);
distributedCommands(program);
miscCommands(program);
provenanceCommand(program);
analyzeCommands(program);
forkCommand(program);
mcpCommand(program);
gcCommand(program);
reportCommands(program);

// A closed pipe (`engiloop … | head`) ends output quietly instead of crashing.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });

const shutdown = await initTelemetry();
try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    process.exitCode = e.exitCode === 0 ? EXIT.OK : EXIT.BAD_INPUT;
  } else if (e instanceof CliExit) {
    console.error(`engiloop: ${e.message}`);
    process.exitCode = e.code;
  } else if (e instanceof EngiloopError) {
    console.error(`engiloop: ${e.message}`);
    process.exitCode = isTaskLoadError(e) ? EXIT.BAD_INPUT : EXIT.ENV;
  } else {
    console.error(e);
    process.exitCode = EXIT.ENV;
  }
} finally {
  await shutdown();
}
