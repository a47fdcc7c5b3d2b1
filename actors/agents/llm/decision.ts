/**
 * From a provider reply to the raw output `parseDecision` reads:
 *
 * - tool calls → `{ actions: [...] }` in call order (several calls are one batch);
 * - a lone `done` / `fail` call → `{ done: true, message? }` / `{ fail: reason }`;
 * - a refusal (OpenAI `message.refusal`, Anthropic `stop_reason: "refusal"`) → `{ fail: "refused: …" }`:
 *   the model declined the task, which is the agent failing, not the infrastructure, and asking
 *   again in the next round would mostly repeat it;
 * - anything else → an `InvalidOutput` carrying the reason and what the model sent (malformed
 *   arguments verbatim), which `parseDecision` rejects, so the round is recorded as invalid and
 *   answered with an error observation.
 */
import type { Action } from '../../../tasks/index.js';
import { callToAction } from './tools.js';
import type { Reply } from './types.js';

/** The raw output for a reply that is not a valid decision. Has no `actions`/`done`/`fail` key. */
export interface InvalidOutput {
  /** Human-readable reason, naming the tool call at fault. */
  invalid: string;
  /** The calls as the model sent them; `arguments` is the unparsed text when it was not JSON. */
  tool_calls: { name: string; arguments: unknown }[];
  /** Text the model wrote, when any. */
  text?: string;
}

/** True when `raw` is an `InvalidOutput` (its `invalid` key is the reason to show the model). */
export function isInvalidOutput(raw: unknown): raw is InvalidOutput {
  return (
    typeof raw === 'object' && raw !== null && typeof (raw as { invalid?: unknown }).invalid === 'string'
  );
}

const CUT = new Set(['length', 'max_tokens']);

/** The raw decision for `reply` in a task with interface `iface`. Never throws. */
export function replyToDecision(reply: Reply, iface: 'cli' | 'gui'): unknown {
  if (reply.refusal !== null) return { fail: `refused: ${reply.refusal}` };
  const sent = reply.calls.map((c) => ({ name: c.name, arguments: 'args' in c ? c.args : c.argsText }));
  const invalid = (reason: string): InvalidOutput => ({
    invalid: reason,
    tool_calls: sent,
    ...(reply.text ? { text: reply.text } : {}),
  });
  const cut =
    reply.stopReason !== null && CUT.has(reply.stopReason)
      ? ' (the answer was cut at the output token limit)'
      : '';
  if (reply.calls.length === 0)
    return invalid(`no tool call${cut}: answer with at least one tool call; text alone is not executed`);

  const actions: Action[] = [];
  const ends: ({ done: true; message?: string } | { fail: string })[] = [];
  for (const [i, c] of reply.calls.entries()) {
    const where = `tool call ${i + 1} (${c.name})`;
    if (!('args' in c)) return invalid(`${where}: arguments are not valid JSON${cut} (${c.parseError})`);
    const r = callToAction(iface, c.name, c.args);
    if (!r.ok) return invalid(`${where}: ${r.reason}`);
    if ('end' in r) ends.push(r.end);
    else actions.push(r.action);
  }
  const [end] = ends;
  if (end === undefined) return { actions };
  if (ends.length > 1 || actions.length > 0)
    return invalid('done and fail must be the only tool call of an answer; nothing was executed');
  return end;
}
