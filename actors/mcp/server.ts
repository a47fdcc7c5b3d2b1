/**
 * The MCP server of one episode: the task's action set as tools (CLI: `shell`; GUI: the
 * computer-use actions), plus `observe`, `done` and `fail`, and the objective as the server's
 * instructions and a `task` resource. Each acting call is one round of the episode (see
 * `bridge-agent.ts`); one call runs at a time, and after the episode's end every call is an error.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ActionSchema, type LoadedTask, type Task } from '../../tasks/index.js';
import type { McpBridgeAgent, Turn } from './bridge-agent.js';
import { endText, toolError, turnResult, type ScreenshotSource } from './content.js';

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
    sandbox: `sandbox to run in (one of: ${names.join(', ')}; default ${names[0]})`,
    timeout_sec: `per-command timeout in seconds (default ${task.limits.action_timeout_sec})`,
    until:
      'optional: "settled" ends the wait once the screen stops changing, "changed" once it has changed since before the previous action and then settled, {"window": regex} once the focused window\'s title matches; `seconds` is then the longest wait',
  };
}

/** The zod shape of an action's arguments (the ActionSchema option without `type`). */
function actionShape(type: string, docs: Record<string, string>): Record<string, z.ZodType> {
  const option = ActionSchema.options.find((o) => o.shape.type.value === type)!;
  const shape: Record<string, z.ZodType> = {};
  for (const [key, schema] of Object.entries(option.shape))
    if (key !== 'type') shape[key] = docs[key] ? schema.describe(docs[key]) : schema;
  return shape;
}

/** The server's instructions: the objective, the deliverables, and how rounds work. */
export function instructions(task: Task): string {
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
    { instructions: instructions(task), capabilities: { tools: {}, resources: {} } },
  );
  let busy = false;

  /** Runs one call at a time, answering with the turn it leads to. */
  const tool =
    <A>(run: (args: A) => Promise<Turn>) =>
    async (args: A, extra: Extra): Promise<CallToolResult> => {
      if (agent.ended)
        return toolError(
          `The episode has already ended; nothing more can be done in it.\n${endText(agent.ended)}`,
        );
      if (busy) return toolError('Another tool call is still running: call one tool at a time.');
      busy = true;
      const stop = heartbeat(extra, o.heartbeatMs ?? 5_000);
      try {
        return await turnResult(await run(args), o.screenshot);
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
      tool((args: Record<string, unknown>) => agent.submit({ actions: [{ type: name, ...args }] })),
    );
  server.registerTool(
    'observe',
    {
      description:
        'The current observation (text, and the screenshot in a GUI task) without spending a round.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    tool(() => agent.observe()),
  );
  server.registerTool(
    'done',
    {
      description: 'Declare the task complete: the deliverables are verified and the episode ends.',
      inputSchema: { message: z.string().optional().describe('a note on what was delivered') },
    },
    tool(({ message }: { message?: string | undefined }) =>
      agent.submit(message === undefined ? { done: true } : { done: true, message }),
    ),
  );
  server.registerTool(
    'fail',
    {
      description: 'Give up on the task: the episode ends as failed.',
      inputSchema: { reason: z.string().min(1).describe('why the task cannot be completed') },
    },
    tool(({ reason }: { reason: string }) => agent.submit({ fail: reason })),
  );
  server.registerResource(
    'task',
    `engiloop://task/${task.id}`,
    { title: task.title, description: 'The task objective and how to work on it', mimeType: 'text/markdown' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: instructions(task) }] }),
  );
  return server;
}
