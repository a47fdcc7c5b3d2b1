/** Text of observations: what the environment shows the agent. */
import type { EpisodeContext } from '../../machines/index.js';
import type { ActionRecord, CommandResultRecord } from '../../streams/index.js';
import type { CommandResult } from '../sandbox/index.js';

function block(label: string, text: string): string {
  return text.length === 0 ? '' : `${label}:\n${text.endsWith('\n') ? text : `${text}\n`}`;
}

/** One action's result as the agent reads it. */
export function formatResult(action: ActionRecord, r: CommandResultRecord): string {
  const head = action.type === 'shell' ? `$ ${action.command}` : `> ${JSON.stringify(action)}`;
  const status = r.timedOut
    ? `killed after timeout (${r.durationMs} ms)`
    : `exit ${r.exitCode ?? 'none'}, ${r.durationMs} ms`;
  const cut = r.truncated ? ' (output cut at the cap)' : '';
  return `${head}\n[${status}${cut}]\n${block('stdout', r.stdout)}${block('stderr', r.stderr)}`;
}

/** The observation for the next round, from the context the machine holds. */
export function observationText(ctx: EpisodeContext, initialListing: string | null): string {
  const last = ctx.history[ctx.history.length - 1];
  if (!last) return `Round 1 of ${ctx.rules.maxRounds}. Workspace contents:\n${initialListing ?? '(empty)'}`;
  const head = `Round ${ctx.round + 1} of ${ctx.rules.maxRounds}.`;
  if (last.decision.kind === 'invalid')
    return `${head}\nERROR: your last output was not a valid action and was not executed: ${last.decision.error}`;
  return `${head}\n${last.results.map((x) => formatResult(x.action, x.result)).join('\n')}`;
}

/**
 * A result for an action that was not run: refused (not available here, unknown sandbox) or, with
 * `skipped`, left out after an earlier GUI action of the turn failed.
 */
export function notRun(message: string, skipped = false): CommandResult {
  return {
    stdout: '',
    stderr: message,
    exitCode: null,
    durationMs: 0,
    truncated: false,
    timedOut: false,
    ...(skipped ? { skipped: true } : {}),
  };
}
