/**
 * The tools every model is offered — the same names, descriptions and schemas for every provider —
 * and the mapping between tool calls and harness actions, both ways (history is rebuilt from
 * recorded decisions, so the mapping must round-trip).
 *
 * CLI tasks: `shell`, `view_image`, `done`, `fail`. GUI tasks: the computer-use actions (`click`,
 * `double_click`, `move`, `drag`, `scroll`, `key`, `type`, `wait`), `done`, `fail`.
 */
import { z } from 'zod';
import type { Action } from '../../../tasks/index.js';
import type { ToolCall, ToolSpec } from './types.js';

const sandbox = z
  .string()
  .min(1)
  .optional()
  .describe("Sandbox to use (see the task's sandbox list); defaults to the first one.");
const x = z.number().describe('Horizontal pixel coordinate in the screenshot.');
const y = z.number().describe('Vertical pixel coordinate in the screenshot.');

/** Argument schemas, keyed by tool name; the order here is the order offered to models. */
const CLI = {
  shell: {
    description:
      'Run a bash command in the sandbox (non-interactive, no TTY, starts in the workdir). Returns exit code, stdout and stderr.',
    args: z.strictObject({
      command: z.string().min(1).describe('The bash command.'),
      sandbox,
      timeout_sec: z.number().positive().optional().describe('Timeout in seconds (default: the task limit).'),
    }),
  },
  view_image: {
    description:
      'Look at an image file (PNG) in the sandbox, e.g. a render or plot you produced. It is shown to you with the next observation.',
    args: z.strictObject({
      path: z.string().min(1).describe('Path of the image, relative to the workdir or absolute.'),
      sandbox,
    }),
  },
} as const;

const GUI = {
  click: {
    description: 'Click at a point.',
    args: z.strictObject({ x, y, button: z.enum(['left', 'right', 'middle']).optional() }),
  },
  double_click: { description: 'Double-click at a point.', args: z.strictObject({ x, y }) },
  move: { description: 'Move the pointer to a point.', args: z.strictObject({ x, y }) },
  drag: {
    description: 'Press the left button at (from_x, from_y), move to (to_x, to_y), release.',
    args: z.strictObject({ from_x: z.number(), from_y: z.number(), to_x: z.number(), to_y: z.number() }),
  },
  scroll: {
    description: 'Scroll at a point by dx, dy wheel steps (positive dy scrolls down).',
    args: z.strictObject({ x, y, dx: z.number(), dy: z.number() }),
  },
  key: {
    description: 'Press a key or a combination, xdotool style, e.g. "Return", "ctrl+s", "ctrl+shift+z".',
    args: z.strictObject({ keys: z.string().min(1) }),
  },
  type: { description: 'Type text at the keyboard focus.', args: z.strictObject({ text: z.string() }) },
  wait: {
    description: 'Wait a number of seconds, e.g. for the application to respond.',
    args: z.strictObject({ seconds: z.number().nonnegative() }),
  },
} as const;

const END = {
  done: {
    description:
      'Declare the task complete. Call it alone, once the deliverables are written and checked; the work is then verified.',
    args: z.strictObject({ message: z.string().optional().describe('Optional summary of what you did.') }),
  },
  fail: {
    description: 'Give up: the task cannot be completed. Call it alone.',
    args: z.strictObject({ reason: z.string().min(1).describe('Why the task cannot be completed.') }),
  },
} as const;

type Entry = { description: string; args: z.ZodType };

function tableFor(iface: 'cli' | 'gui'): Record<string, Entry> {
  return iface === 'cli' ? { ...CLI, ...END } : { ...GUI, ...END };
}

/** Tool definitions for an interface, identical for every model. */
export function toolSpecs(iface: 'cli' | 'gui'): ToolSpec[] {
  return Object.entries(tableFor(iface)).map(([name, e]) => {
    const { $schema: _drop, ...parameters } = z.toJSONSchema(e.args) as Record<string, unknown>;
    return { name, description: e.description, parameters };
  });
}

const MARK = '# engiloop:view_image ';

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * The shell action a `view_image` call becomes: it lists the file (so a missing file shows up as
 * an error) and carries a marker from which the harness reads the request back.
 */
export function viewImageAction(path: string, sandboxName?: string): Action {
  const command = `ls -l -- ${shellQuote(path)}  ${MARK}${JSON.stringify(path)}`;
  return sandboxName === undefined
    ? { type: 'shell', command }
    : { type: 'shell', command, sandbox: sandboxName };
}

/**
 * The image an action asks to see, or `null`. The harness calls it on executed actions, reads the
 * file from the sandbox and passes it as `AgentInput.images` with the next observation.
 *
 * @example
 * ```ts
 * const want = viewImageRequest(action); // { path: 'out/render.png', sandbox: undefined }
 * ```
 */
export function viewImageRequest(action: Action): { path: string; sandbox?: string } | null {
  if (action.type !== 'shell') return null;
  const at = action.command.lastIndexOf(MARK);
  if (at < 0) return null;
  try {
    const path: unknown = JSON.parse(action.command.slice(at + MARK.length));
    if (typeof path !== 'string') return null;
    return action.sandbox === undefined ? { path } : { path, sandbox: action.sandbox };
  } catch {
    return null;
  }
}

/** Validates a call's arguments against its tool; returns the action, `end`, or a reason. */
export function callToAction(
  iface: 'cli' | 'gui',
  name: string,
  args: unknown,
):
  | { ok: true; action: Action }
  | { ok: true; end: { done: true; message?: string } | { fail: string } }
  | { ok: false; reason: string } {
  const table = tableFor(iface);
  const entry = Object.hasOwn(table, name) ? table[name] : undefined;
  if (!entry)
    return { ok: false, reason: `unknown tool "${name}" (tools: ${Object.keys(table).join(', ')})` };
  const r = entry.args.safeParse(args);
  if (!r.success) {
    const i = r.error.issues[0];
    return {
      ok: false,
      reason: `arguments do not match the schema: ${i?.path.join('.') || '(arguments)'}: ${i?.message}`,
    };
  }
  const a = r.data as Record<string, unknown>;
  switch (name) {
    case 'done':
      return {
        ok: true,
        end: a.message === undefined ? { done: true } : { done: true, message: a.message as string },
      };
    case 'fail':
      return { ok: true, end: { fail: a.reason as string } };
    case 'view_image':
      return { ok: true, action: viewImageAction(a.path as string, a.sandbox as string | undefined) };
    case 'drag':
      return {
        ok: true,
        action: {
          type: 'drag',
          from: [a.from_x as number, a.from_y as number],
          to: [a.to_x as number, a.to_y as number],
        },
      };
    default:
      return { ok: true, action: { type: name, ...a } as Action };
  }
}

/** The tool call that would have produced `action`, for rebuilding history. */
export function actionToCall(action: Action, id: string): ToolCall {
  const view = viewImageRequest(action);
  if (view) return { id, name: 'view_image', args: { ...view } };
  const { type, ...rest } = action;
  if (action.type === 'drag')
    return {
      id,
      name: 'drag',
      args: { from_x: action.from[0], from_y: action.from[1], to_x: action.to[0], to_y: action.to[1] },
    };
  return { id, name: type, args: rest };
}
