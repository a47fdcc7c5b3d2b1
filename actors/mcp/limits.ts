/**
 * Size limits of the MCP bridge. Every acting call is recorded in the episode log (the agent's raw
 * output and the parsed decision in one `agent.decided` event, the action again in
 * `action.started` and `action.executed`), and a NATS message holds at most 1 MiB: an argument the
 * log cannot hold would end the episode as `infra_error` (LOG_WRITE_FAILED), which the agent must
 * not be able to cause. So arguments are capped well below it (two copies of the largest fit in
 * one event with room to spare), and whole messages at the transport.
 *
 * Limits, in UTF-8 bytes (what the msgpack log stores; JSON Schema's `maxLength`, in characters,
 * is the same number and so a looser bound for non-ASCII text):
 * - one JSON-RPC message: {@link MAX_MESSAGE_BYTES} (1 MiB), at the transport, before parsing;
 * - `shell.command`: 256 KiB; `type.text`: 64 KiB; `done.message`, `fail.reason`: 16 KiB;
 * - any other string argument (`sandbox`, `key.keys`, `wait.until.window`): 1 KiB.
 */

/** Largest JSON-RPC message the server reads (1 MiB); a longer one is refused unread. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** Largest UTF-8 size of a string argument, by argument name; others get {@link MAX_OTHER_BYTES}. */
const MAX_ARG_BYTES: Readonly<Record<string, number>> = {
  command: 256 * 1024,
  text: 64 * 1024,
  message: 16 * 1024,
  reason: 16 * 1024,
};

/** Largest UTF-8 size of any other string argument. */
const MAX_OTHER_BYTES = 1024;

/** The cap of a string argument named `name`. */
export const argCap = (name: string): number => MAX_ARG_BYTES[name] ?? MAX_OTHER_BYTES;

/** A string argument over its cap. */
export interface Oversized {
  /** The argument's name (a nested one's own key, e.g. `window`). */
  arg: string;
  /** Its size in UTF-8 bytes, and its cap. */
  bytes: number;
  limit: number;
  /** What the agent reads. */
  message: string;
}

/**
 * The first string argument of a `tool` call over its cap; null when every argument fits. Nested
 * strings (`until.window`) are checked under their own key.
 * @example oversizedArg('shell', { command: 'x'.repeat(300_000) })?.message
 * // 'shell: `command` is 300000 bytes (UTF-8); the limit is 262144 bytes (256 KiB). …'
 */
export function oversizedArg(tool: string, args: Record<string, unknown>): Oversized | null {
  const walk = (v: unknown, key: string): Oversized | null => {
    if (typeof v === 'string') {
      const bytes = Buffer.byteLength(v, 'utf8');
      const limit = argCap(key);
      if (bytes <= limit) return null;
      const hint =
        key === 'command'
          ? 'Write large content in several smaller commands (e.g. append to a file), or generate it in the sandbox.'
          : 'Send it in smaller pieces.';
      const message = `${tool}: \`${key}\` is ${bytes} bytes (UTF-8); the limit is ${limit} bytes (${limit / 1024} KiB). ${hint}`;
      return { arg: key, bytes, limit, message };
    }
    const children = Array.isArray(v)
      ? v.map((x) => [key, x] as const)
      : v !== null && typeof v === 'object'
        ? Object.entries(v)
        : [];
    for (const [k, x] of children) {
      const over = walk(x, k);
      if (over) return over;
    }
    return null;
  };
  return walk(args, '');
}
