/** One-line human summaries of events, for `engiloop events` and the replay viewer. */
import type { EpisodeEvent } from '../../streams/index.js';
import { escapeForTerminal } from '../terminal.js';

const one = (s: string, n = 90) => s.replace(/\s+/g, ' ').slice(0, n);

/**
 * A short human summary of an event, for the table: one line, control characters from sandbox or
 * model output shown escaped (see `escapeForTerminal`).
 */
export function summarizeEvent(e: EpisodeEvent): string {
  return escapeForTerminal(summary(e));
}

function summary(e: EpisodeEvent): string {
  switch (e.type) {
    case 'episode.started':
      return `task ${e.task.id} (${String(e.task.domain)}/${String(e.task.type)}), agent ${e.agent}, max ${e.rules?.maxRounds ?? String((e.task.limits as { max_rounds?: number } | undefined)?.max_rounds)} rounds${e.machine === undefined ? '' : `, machine ${e.machine}`}`;
    case 'sandbox.provisioned':
      return Object.entries(e.sandboxes)
        .map(([k, v]) => `${k}=${v.slice(0, 12)}`)
        .join(' ');
    case 'observation.recorded':
      return `round ${e.round}: ${one(e.text)}`;
    case 'agent.decided':
      return `round ${e.round}: ${e.decision.kind === 'act' ? e.decision.actions.map((a) => (a.type === 'shell' ? one(a.command, 60) : a.type)).join(' ; ') : e.decision.kind === 'invalid' ? `INVALID ${one(e.decision.error, 70)}` : e.decision.kind.toUpperCase()} (${e.latencyMs} ms${e.call ? `, ${e.call.usage.input}→${e.call.usage.output} tokens${e.call.costUsd === null ? '' : `, $${e.call.costUsd.toFixed(4)}`}` : ''})`;
    case 'action.executed':
      return `round ${e.round}.${e.index}: exit ${e.result.exitCode ?? '-'}${e.result.timedOut ? ' TIMEOUT' : ''}${e.result.truncated ? ' CUT' : ''}${e.result.fault ? ` ${e.result.fault.code}` : ''} ${e.result.durationMs} ms ${one(e.result.stderr || e.result.stdout, 60)}`;
    case 'verification.completed':
      return `score ${e.score.toFixed(3)} ${e.passed ? 'passed' : 'not passed'}: ${e.verdicts.map((v) => `${v.criterion}=${v.passed ? 'ok' : 'FAIL'}`).join(' ')}`;
    case 'infra.failed':
      return `${e.error.code} during ${e.during}: ${one(e.error.message)}`;
    case 'agent.retried':
      return `round ${e.round}: provider attempt ${e.attempt} failed (${e.status ?? e.code ?? '?'}: ${one(e.message, 60)}), retry in ${e.delayMs} ms`;
    case 'action.started':
      return `round ${e.round}.${e.index}: ${e.action.type === 'shell' ? one(e.action.command, 70) : e.action.type}`;
    case 'episode.resumed':
      return `${e.reason === 'sandbox_lost' ? 'sandbox restored' : `by ${e.worker}`} in ${e.state}${e.snapshotRound != null ? ` from snapshot @${e.snapshotRound}` : ''}: ${e.replayed} action(s) re-run, ${e.divergences.length} divergence(s)${e.interrupted ? `, interrupted ${e.interrupted.round}.${e.interrupted.index} re-run` : ''}${e.downtimeMs != null ? `, down ${e.downtimeMs} ms` : ''}`;
    case 'workspace.snapshotted':
      return `after round ${e.round} (${e.reason}): ${Object.entries(e.sandboxes)
        .map(([k, v]) => `${k} ${(v.bytes / 1024).toFixed(1)} KiB`)
        .join(', ')} in ${e.durationMs} ms`;
    case 'snapshot.skipped':
      return `after round ${e.round} (${e.reason}): not taken, ${e.sandbox} reached ${(e.bytes / 1024).toFixed(1)} KiB with ${(e.usedBytes / 1048576).toFixed(1)} of ${(e.budgetBytes / 1048576).toFixed(1)} MiB of the budget used`;
    case 'snapshot.skipped':
      return `after round ${e.round} (${e.reason}): not taken, ${e.sandbox} passed the snapshot budget (${(e.usedBytes / 2 ** 20).toFixed(1)} of ${(e.budgetBytes / 2 ** 20).toFixed(0)} MiB used)`;
    case 'stage.checked':
      return `stage ${e.stage} after round ${e.round}: score ${e.score.toFixed(3)} ${e.passed ? 'passed' : 'FAILED'}${e.blockedBy ? ` (blocked by ${e.blockedBy.stage})` : ''}${e.halt ? ' → HALT' : ''}`;
    case 'artifact.handed_off':
      return `round ${e.round}.${e.index}: ${e.from.sandbox}:${e.from.path} → ${e.to.sandbox}:${e.to.path} (${e.format}, ${e.bytes} bytes, sha256 ${e.digest.slice(0, 12)})`;
    case 'sandbox.lost':
      return `${e.error.code} during ${e.during} (loss ${e.attempt}): ${one(e.error.message)}`;
    case 'stages.swept':
      return `stage checks after ${e.after === 'final' ? 'the episode' : e.after === 'handoff' ? 'a hand-off' : 'the round'} (round ${e.round}) done`;
    case 'episode.claimed':
      return `taken over by ${e.worker}`;
    case 'episode.ended':
      return `${e.status}, score ${e.score ?? '—'}, ${e.rounds} rounds`;
  }
}
