/**
 * `engiloop mcp --task <dir>`: one episode of a task served as MCP tools over stdio, so any
 * MCP-capable agent can work in the sandbox while engiloop records every step and verifies the
 * deliverables when the agent calls `done`. stdout is the MCP channel: everything else goes to stderr.
 */
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { validateId } from '../../../streams/index.js';
import { loadSuite, type LoadedTask } from '../../../tasks/index.js';
import { runEpisode, type EpisodeProgress } from '../../episode/index.js';
import {
  BoundedStdioServerTransport,
  McpBridgeAgent,
  createMcpServer,
  endText,
  type ScreenshotSource,
} from '../../mcp/index.js';
import { escapeForTerminal } from '../../terminal.js';
import { recordSummary } from '../../analysis/index.js';
import { episodeId, forkEpisode, lastForkableRound, summarize } from '../../run/index.js';
import { CliExit, EXIT, wholeNumber } from '../exit.js';
import { withRunEnv } from '../run-env.js';
import type { StreamsEnv } from '../streams-env.js';
import { verifierRules } from '../../../verifiers/index.js';

interface McpFlags {
  task: string;
  runId?: string;
  fork?: string;
  at?: string;
}

/** Loads exactly one valid task from `path`; anything else is bad input. */
async function loadOne(path: string): Promise<LoadedTask> {
  const load = await loadSuite(path, { verifiers: verifierRules }).catch((e: Error) => {
    throw new CliExit(EXIT.BAD_INPUT, e.message);
  });
  if (load.errors[0]) throw new CliExit(EXIT.BAD_INPUT, load.errors[0].message);
  if (load.tasks.length !== 1)
    throw new CliExit(EXIT.BAD_INPUT, `${path} holds ${load.tasks.length} tasks: give one task folder`);
  return load.tasks[0]!;
}

const untilAborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );

/** The screenshot digest of the episode's latest observation, fetched from the object store. */
const latestScreenshot =
  (streams: StreamsEnv, id: string): ScreenshotSource =>
  async () => {
    const events = await streams.log.read(id);
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.type !== 'observation.recorded') continue;
      if (!e.screenshot) return null;
      return { name: 'screenshot', mediaType: 'image/png', data: await streams.blobs.get(e.screenshot) };
    }
    return null;
  };

/** One stderr line per state or round change. */
function progressLog(): (p: EpisodeProgress) => void {
  let last = '';
  return (p) => {
    const line = `[${p.taskId}] ${p.state} round ${p.round}/${p.maxRounds}${p.lastAction ? `  ${p.lastAction}` : ''}`;
    // The last action is the agent's text: shown escaped, and one line.
    if (line !== last) console.error(escapeForTerminal(line));
    last = line;
  };
}

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve one episode of a task as MCP tools over stdio, for any MCP-capable agent')
    .requiredOption('-t, --task <dir>', 'task folder (with task.yaml)')
    .option('--run-id <id>', 'run id to record the episode under (default: a new one)')
    .option(
      '--fork <episode>',
      "start from this episode's state at the end of round --at (see `engiloop fork`)",
    )
    .option('--at <round>', 'with --fork: the round whose end the episode starts from')
    .addHelpText(
      'after',
      '\nstdout carries the MCP protocol; logs go to stderr. The episode starts when the client has\n' +
        'initialized and ends when it calls `done` or `fail`, at the round limit, or when it disconnects\n' +
        '(infra_error ABORTED, containers removed). The process exits when the client disconnects.\n' +
        'Limits: a message over 1 MiB gets a JSON-RPC error (-32600) and is not read; a `shell` command\n' +
        'over 256 KiB (`type` text 64 KiB, `done`/`fail` text 16 KiB, other strings 1 KiB; UTF-8) is\n' +
        'not run: it spends its round as an invalid output, and the episode goes on.\n' +
        'Exit codes: 0 the episode ended (whatever it scored), 1 it ended in infra_error, 2 bad input,\n' +
        '3 NATS or Docker unusable.',
    )
    .action(async (f: McpFlags) => {
      // stdout is the MCP channel: a stray console.log anywhere would corrupt it.
      console.log = console.info = console.debug = console.error;
      const lt = await loadOne(f.task);
      if (f.runId !== undefined)
        try {
          validateId('run', f.runId);
        } catch (e) {
          throw new CliExit(EXIT.BAD_INPUT, `--run-id: ${(e as Error).message}`);
        }

      if ((f.fork === undefined) !== (f.at === undefined))
        throw new CliExit(EXIT.BAD_INPUT, '--fork and --at go together: --fork <episode> --at <round>');
      const at = f.at === undefined ? 0 : wholeNumber('at', f.at, 0);

      await withRunEnv(async (env) => {
        const original = f.fork === undefined ? null : await env.streams.log.read(f.fork);
        if (original && original[0]?.type !== 'episode.started')
          throw new CliExit(EXIT.BAD_INPUT, `--fork: no episode "${f.fork}"`);
        if (original && original[0]?.type === 'episode.started' && original[0].task.id !== lt.task.id)
          throw new CliExit(
            EXIT.BAD_INPUT,
            `--fork: episode ${f.fork} ran task ${original[0].task.id}, not ${lt.task.id}`,
          );
        if (original && at > lastForkableRound(original))
          throw new CliExit(
            EXIT.BAD_INPUT,
            `--at ${at}: episode ${f.fork} can be forked at a round from 0 to ${lastForkableRound(original)}`,
          );
        const runId = f.runId ?? env.runId;
        const id = episodeId(runId, lt.task.id, 1);
        const gone = new AbortController();
        const onGone = () => gone.abort();
        process.stdin.once('end', onGone).once('close', onGone);
        const signal = AbortSignal.any([env.signal, gone.signal]);
        const agent = new McpBridgeAgent();
        const server = createMcpServer(lt, agent, { screenshot: latestScreenshot(env.streams, id) });
        const ready = new Promise<void>((resolve) => (server.server.oninitialized = resolve));
        // Refused messages (over 1 MiB, not JSON) are answered with a JSON-RPC error and logged.
        server.server.onerror = (e) => console.error(`engiloop mcp: ${escapeForTerminal(e.message)}`);
        await server.connect(new BoundedStdioServerTransport());
        try {
          console.error(`engiloop mcp: task ${lt.task.id}; waiting for an MCP client on stdin/stdout`);
          await Promise.race([ready, untilAborted(signal)]);
          if (signal.aborted) throw new CliExit(EXIT.INFRA, 'the MCP client went away before initializing');
          agent.setClient(server.server.getClientVersion()?.name);
          const suite = original ? `fork of ${f.fork}@${at}` : f.task;
          await env.streams.runs.start(runId, {
            suite,
            agent: agent.name,
            episodes: [id],
            startedAt: Date.now(),
          });
          console.error(`run ${runId}: episode ${id}, agent ${agent.name} — events in ${env.streams.where}`);
          const common = {
            episodeId: id,
            runId,
            agent,
            artifactsDir: join(dirname(env.runDir), runId, id, 'artifacts'),
            signal,
            onProgress: progressLog(),
          };
          const result = original
            ? await forkEpisode(lt, env.streams.log, env.deps, {
                ...common,
                events: original,
                at,
                agentSpec: agent.name,
              })
            : await runEpisode(lt, env.deps, common);
          agent.end(result);
          const recorded = await recordSummary(env.streams.log, env.streams.summaries, id);
          if (!recorded.ok) console.error(`engiloop mcp: no summary for ${id}: ${recorded.error}`);
          const summary = summarize([result]);
          await env.streams.runs.finish(runId, {
            runId,
            suite,
            agent: agent.name,
            results: [result],
            summary,
            invalidTasks: [],
          });
          console.error(
            `${escapeForTerminal(endText(result), { multiline: true })}\nrun ${runId} — results: engiloop results ${runId}`,
          );
          process.exitCode = result.status === 'infra_error' ? EXIT.INFRA : EXIT.OK;
          // Until the client disconnects, further calls are answered "the episode has ended".
          await untilAborted(signal);
        } finally {
          process.stdin.off('end', onGone).off('close', onGone);
          await server.close();
        }
      });
    });
}
