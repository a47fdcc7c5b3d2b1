/**
 * Parses an agent's raw output into a `Decision`. Pure. Anything that is not a valid output becomes
 * `{ kind: 'invalid', error }`: recorded, answered with an error observation, and the round is spent.
 *
 * Accepted raw shapes: `{ actions: Action[] }`, `{ done: true, message? }`, `{ fail: "reason" }`.
 * An agent that already knows its output is unusable (a model's malformed tool call) returns
 * `{ invalid: "reason", ... }`: invalid with that reason.
 */
import { z } from 'zod';
import { ActionSchema } from '../tasks/index.js';
import type { Decision } from '../streams/index.js';

const RawSchema = z.union([
  z
    .object({ actions: z.array(ActionSchema).min(1, 'give at least one action, or say done / fail') })
    .strict(),
  z.object({ done: z.literal(true), message: z.string().optional() }).strict(),
  z.object({ fail: z.string().min(1) }).strict(),
]);

function describe(err: z.ZodError): string {
  const issue = err.issues[0];
  if (!issue) return 'not a valid agent output';
  if (issue.code === 'invalid_union') {
    // Report the branch that got furthest: the one whose first issue has the longest path.
    const best = issue.errors
      .map((branch) => branch[0])
      .filter((i): i is z.core.$ZodIssue => i !== undefined)
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (best) return `${best.path.join('.') || '(output)'}: ${best.message}`;
  }
  return `${issue.path.join('.') || '(output)'}: ${issue.message}`;
}

/** Parses the raw output, never throwing. */
export function parseDecision(raw: unknown): Decision {
  const inv = (raw as { invalid?: unknown } | null)?.invalid;
  if (typeof inv === 'string' && inv.length > 0) return { kind: 'invalid', error: inv };
  const r = RawSchema.safeParse(raw);
  if (!r.success)
    return {
      kind: 'invalid',
      error: `${describe(r.error)}. Expected {"actions":[{"type":"shell","command":"..."}]}, {"done":true} or {"fail":"reason"}.`,
    };
  const v = r.data;
  if ('actions' in v) return { kind: 'act', actions: v.actions };
  if ('done' in v) return v.message === undefined ? { kind: 'done' } : { kind: 'done', message: v.message };
  return { kind: 'fail', reason: v.fail };
}
