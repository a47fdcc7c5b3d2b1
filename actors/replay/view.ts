/**
 * Text views of a replayed round, for the terminal viewer. Observations, agent output and command
 * output are the agent's text: control characters in them are shown escaped (`escapeForTerminal`).
 */
import { formatResult } from '../episode/index.js';
import { escapeForTerminal } from '../terminal.js';
import { summarizeEvent } from './summary.js';
import type { RoundView, Timeline } from './timeline.js';

const clip = (s: string, n: number) =>
  s.length > n ? `${s.slice(0, n)}\n… (${s.length - n} more characters)` : s;

/** The whole view of round `i` (0-based index into `tl.rounds`). */
export function renderRound(tl: Timeline, i: number, width = 100): string {
  const r: RoundView = tl.rounds[i]!;
  const d = r.decided;
  const digest =
    r.recordedDigest === null ? 'not recorded (v1 log)' : `matches ${r.foldedDigest.slice(0, 12)}…`;
  const lines = [
    `━━ round ${r.round} of ${tl.rounds.length} ━━ events ${r.fromEvent + 1}–${r.toEvent + 1} ━━ state after: ${r.stateAfter} ━━ state digest: ${digest}`,
    '',
    '── observation',
    clip(r.observation, 3000),
    ...(r.screenshot ? [`   screenshot: sha256 ${r.screenshot} (--screenshots <dir> writes it out)`] : []),
    '',
    `── agent output (${d?.latencyMs ?? 0} ms)`,
    clip(JSON.stringify(d?.raw, null, 1) ?? '', 2000),
    `   parsed: ${d ? (d.decision.kind === 'act' ? `${d.decision.actions.length} action(s)` : d.decision.kind === 'invalid' ? `INVALID — ${d.decision.error}` : d.decision.kind.toUpperCase()) : '—'}`,
  ];
  for (const a of r.actions)
    lines.push('', `── action ${a.index + 1}`, clip(formatResult(a.action, a.result), 3000));
  if (r.harness.length > 0) lines.push('', '── harness');
  for (const e of r.harness) lines.push(`   ${e.type}: ${summarizeEvent(e)}`);
  return lines
    .map((l) =>
      l
        .split('\n')
        .map((x) => escapeForTerminal(x, { multiline: true }).slice(0, Math.max(40, width)))
        .join('\n'),
    )
    .join('\n');
}

/** One line per round, for `--list`. */
export function renderSummary(tl: Timeline): string {
  return tl.rounds
    .map((r) => {
      const d = r.decided?.decision;
      const what = !d
        ? '—'
        : d.kind === 'act'
          ? d.actions.map((a) => (a.type === 'shell' ? a.command.split('\n')[0] : a.type)).join(' ; ')
          : d.kind.toUpperCase();
      const exits = r.actions
        .map((a) => (a.result.timedOut ? 'T' : String(a.result.exitCode ?? '-')))
        .join(',');
      return `${String(r.round).padStart(4)}  ${r.stateAfter.padEnd(11)} exit ${exits.padEnd(6)} ${escapeForTerminal(what).slice(0, 80)}`;
    })
    .join('\n');
}
