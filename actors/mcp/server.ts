/**
 * The MCP server of one episode: the task's action set as tools (CLI: `shell`; GUI: the
 * computer-use actions), plus `observe`, `done` and `fail`, and the objective as the server's
 * instructions and a `task` resource. Each acting call is one round of the episode (see
 * `bridge-agent.ts`); one call runs at a time, and after the episode's end every call is an error.
 *
 * Size limits (`limits.ts`): a call whose string argument is over its cap (e.g. a `shell` command
 * over 256 KiB) is not run but still spends its round, as an invalid output does: it is recorded as
 * an `invalid` decision naming the limit (without the oversized text), the call's result is the
 * next observation, which says so, with `isError: true`, and the episode goes on to be scored.
 * Whole messages over 1 MiB are refused by the transport (`stdio.ts`) and spend nothing.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ActionSchema, defaultSandbox, type LoadedTask, type Task } from '../../tasks/index.js';
import type { McpBridgeAgent, Turn } from './bridge-agent.js';
import { endText, toolError, turnResult, type ScreenshotSource } from './content.js';
import { argCap, oversizedArg, type Oversized } from './limits.js';

/** Options of {@link createMcpServer}. */
export interface EpisodeServerOptions {
  /** Latest screenshot for GUI observations whose agent input carries no image. Default: none. */
  screenshot?: ScreenshotSource;
  /** While a call waits, a progress notification this often, if the client sent a progress token. Default 5000 ms. */
  heartbeatMs?: number;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const CLI_TOOLS = ['shell'] as const;
const GUI_TOOLS = ['click', 'double_click', 'move', 'drag', 'scroll', 'key', 'type', 'wait'] as const;

const TOOL_DOCS: Record<string, string> = {
  shell: "Run a bash command in the sandbox's workdir.",
  click: 'Click at screen pixel (x, y).',
  double_click: 'Double-click at screen pixel (x, y).',
  move: 'Move the pointer to screen pixel (x, y).',
  drag: 'Press at `from` [x, y], move to `to` [x, y], release.',
  scroll: 'Scroll by (dx, dy) notches with the pointer at (x, y).',
  key: 'Press a key or chord, xdotool style (e.g. "ctrl+s", "Return").',
  type: 'Type text as keystrokes.',
  wait: 'Wait a number of seconds, then look again.',
};

function fieldDocs(task: Task): Record<string, string> {
  const names = Object.keys(task.environment.sandboxes);
  return {
    command: 'bash command; runs in the workdir',
    sandbox: `sandbox to run in (one of: ${names.join(', ')}; default ${defaultSandbox(task)})`,
    timeout_sec: `per-command timeout in seconds (default ${task.limits.action_timeout_sec})`,
    until:
      'optional: "settled" ends the wait once the screen stops changing, "changed" once it has changed since before the previous action and then settled, {"window": regex} once the focused window\'s title matches; `seconds` is then the longest wait',
  };
}

const isString = (s: z.ZodType): boolean =>
  s instanceof z.ZodString || (s instanceof z.ZodOptional && isString(s.unwrap() as z.ZodType));

/**
 * A string argument's schema with its size cap in the description and as `maxLength` in the JSON
 * Schema the client sees. Not enforced by zod: the SDK would answer a tool error that spends no
 * round; the handler refuses it instead (see the file's TSDoc).
 */
function capped<T extends z.ZodType>(key: string, schema: T, doc: string | undefined): T {
  if (!isString(schema)) return doc ? schema.describe(doc) : schema;
  const cap = argCap(key);
  const note = `at most ${cap / 1024} KiB (UTF-8 bytes); a longer one is not run and spends the round`;
  return schema.describe(doc ? `${doc}; ${note}` : note).meta({ maxLength: cap });
}

/** The zod shape of an action's arguments (the ActionSchema option without `type`). */
function actionShape(type: string, docs: Record<string, string>): Record<string, z.ZodType> {
  const option = ActionSchema.options.find((o) => o.shape.type.value === type)!;
  const shape: Record<string, z.ZodType> = {};
  for (const [key, schema] of Object.entries(option.shape))
    if (key !== 'type') shape[key] = capped(key, schema as z.ZodType, docs[key]);
  return shape;
}

/**
 * The raw output recorded for a call over a size cap: an invalid output naming the limit (and
 * `code: 'REQUEST_CAP'`), without the oversized text.
 */
const refused = (tool: string, o: Oversized) => ({
  invalid: o.message,
  code: 'REQUEST_CAP',
  tool,
  arg: o.arg,
  bytes: o.bytes,
  limit: o.limit,
});

/** The server's instructions: the objective, the deliverables, and how rounds work. */
function instructions(task: Task): string {
  const acts = task.interface === 'cli' ? CLI_TOOLS : GUI_TOOLS;
  const deliverables = task.deliverables.map((d) => `${d.path} (${d.format})`).join(', ');
  return [
    `engiloop task "${task.id}": ${task.title} (${task.interface.toUpperCase()}, ${task.domain}).`,
    '',
    task.objective.trimEnd(),
    '',
    `Deliverables: ${deliverables}.`,
    `Each call to ${acts.map((a) => `\`${a}\``).join(', ')} is one round (at most ${task.limits.max_rounds}); ` +
      'its result is the observation after the action ran. `observe` shows the current observation ' +
      'without spending a round. Call `done` when the deliverables are in place: they are verified, the ' +
      'episode ends and the result (status, score, verdicts) is returned. Call `fail` to give up. ' +
      'One call at a time; every step is recorded.',
  ].join('\n');
}

function heartbeat(extra: Extra, everyMs: number): () => void {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return () => {};
  let progress = 0;
  const timer = setInterval(() => {
    const params = { progressToken, progress: ++progress, message: 'waiting for the sandbox' };
    extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
  }, everyMs);
  return () => clearInterval(timer);
}

/** Builds the MCP server for one episode of `lt`, answered through `agent` (not yet connected). */
export function createMcpServer(
  lt: LoadedTask,
  agent: McpBridgeAgent,
  o: EpisodeServerOptions = {},
): McpServer {
  const { task } = lt;
  const server = new McpServer(
    { name: 'engiloop', version: '0.1.0' },
    {
      instructions: instructions(task),
      capabilities: { tools: {}, resources: {} },
      // Arrays and members in one call's arguments: actions have a handful; this bounds parsing.
      maxToolInputElements: 1_000,
    },
  );
  let busy = false;

  /**
   * Runs one call at a time, answering with the turn it leads to. A call with an argument over its
   * cap is submitted as an invalid output instead (its round is spent) and answered as an error.
   */
  const tool =
    <A extends Record<string, unknown>>(name: string, run: (args: A) => Promise<Turn>) =>
    async (args: A, extra: Extra): Promise<CallToolResult> => {
      if (agent.ended)
        return toolError(
          `The episode has already ended; nothing more can be done in it.\n${endText(agent.ended)}`,
        );
      if (busy) return toolError('Another tool call is still running: call one tool at a time.');
      busy = true;
      const stop = heartbeat(extra, o.heartbeatMs ?? 5_000);
      try {
        const over = oversizedArg(name, args);
        if (!over) return await turnResult(await run(args), o.screenshot);
        const turn = await agent.submit(refused(name, over));
        const result = await turnResult(turn, o.screenshot);
        return turn.kind === 'input' ? { ...result, isError: true } : result;
      } finally {
        stop();
        busy = false;
      }
    };

  const docs = fieldDocs(task);
  for (const name of task.interface === 'cli' ? CLI_TOOLS : GUI_TOOLS)
    server.registerTool(
      name,
      {
        description: `${TOOL_DOCS[name]} One round; returns the observation after it.`,
        inputSchema: actionShape(name, docs),
      },
      tool(name, (args: Record<string, unknown>) => agent.submit({ actions: [{ type: name, ...args }] })),
    );
  server.registerTool(
    'observe',
    {
      description:
        'The current observation (text, and the screenshot in a GUI task) without spending a round.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    tool('observe', () => agent.observe()),
  );
  server.registerTool(
    'done',
    {
      description: 'Declare the task complete: the deliverables are verified and the episode ends.',
      inputSchema: { message: capped('message', z.string().optional(), 'a note on what was delivered') },
    },
    tool('done', ({ message }: { message?: string | undefined }) =>
      agent.submit(message === undefined ? { done: true } : { done: true, message }),
    ),
  );
  server.registerTool(
    'fail',
    {
      description: 'Give up on the task: the episode ends as failed.',
      inputSchema: { reason: capped('reason', z.string().min(1), 'why the task cannot be completed') },
    },
    tool('fail', ({ reason }: { reason: string }) => agent.submit({ fail: reason })),
  );
  server.registerResource(
    'task',
    `engiloop://task/${task.id}`,
    { title: task.title, description: 'The task objective and how to work on it', mimeType: 'text/markdown' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: instructions(task) }] }),
  );
  return server;
}
