/**
 * Secrets out of the episode log: every string of an event draft, at any depth (object keys too),
 * is redacted before the event is stored, with the rule the provider recordings use
 * (`redactText`: each configured secret of 8 characters or more in clear, base64, hex or
 * percent-encoded form, and key-shaped strings like `sk-…` or `Bearer …`, become `[REDACTED]`).
 * That covers the model's output (`agent.decided.raw` and the parsed `decision`), tool arguments,
 * action results (a command that prints the key), observations, error messages, and every other
 * field an event has or gains. What is not caught is listed at `secretForms`.
 *
 * The runner redacts before the machine folds the event, so the agent, the machine and a replay
 * all see the redacted text: a command whose text held the key runs with `[REDACTED]` in its place
 * (the key never reaches the sandbox through the log), and a replayed model output, read from the
 * redacted recording, equals the recorded one.
 */
import type { EventDraft } from '../../streams/index.js';
import { REDACTED, redactionPattern } from '../agents/index.js';

/** `value` with its strings redacted by `re`; the same object where nothing changed. */
function redactValue(value: unknown, re: RegExp): unknown {
  if (typeof value === 'string') return value.replace(re, REDACTED);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = redactValue(v, re);
      changed ||= r !== v;
      return r;
    });
    return changed ? out : value;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = k.replace(re, REDACTED);
      const r = redactValue(v, re);
      changed ||= r !== v || key !== k;
      out[key] = r;
    }
    return changed ? out : value;
  }
  // Numbers, booleans, null, undefined. A draft is plain JSON data: nothing else to look into.
  return value;
}

/**
 * `draft` with every configured secret (in each of its forms) and key-shaped string replaced by
 * `[REDACTED]` in all its strings. Never mutates: changed objects are copies, unchanged ones are
 * shared, and `draft` itself is returned when nothing matched. With no secrets (an agent that is
 * not model-backed), returns `draft` at once without walking it.
 * @example
 * ```ts
 * // run-episode.ts, first thing in emit, before externalize:
 * const draft = redactDraft(raw, opts.agent.secrets ?? []);
 * ```
 */
export function redactDraft(draft: EventDraft, secrets: readonly string[]): EventDraft {
  if (secrets.length === 0) return draft;
  return redactValue(draft, redactionPattern(secrets)) as EventDraft;
}
