/**
 * The text of a verdict trace: a table with a row per point (round) and a column per criterion,
 * each cell ✓ or ✗ with the measured value, then a line per criterion saying where it was last
 * right and first wrong. Measured values and reasons come from verifiers reading agent-written
 * files, so every cell is escaped for the terminal.
 */
import { escapeForTerminal } from '../terminal.js';
import type { RightWrong, VerdictTrace } from './trace-series.js';

const CELL = 16;

/** A measured value in a few characters: numbers to 6 significant digits, lists joined with ×. */
function shortValue(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v.map(shortValue).join('×');
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > CELL - 2 ? `${s.slice(0, CELL - 3)}…` : s;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function grid(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** "last right after round 4, first wrong after round 5 (it broke in round 5)", and the variants. */
function rightWrongText(x: RightWrong): string {
  if (x.lastRight === null && x.firstWrong === null) return 'no points';
  if (x.lastRight === null) return `never right (wrong from round ${x.firstWrong} on)`;
  if (x.firstWrong === null) return `right at the end (last right after round ${x.lastRight})`;
  const span =
    x.firstWrong === x.lastRight + 1 ? `round ${x.firstWrong}` : `rounds ${x.lastRight + 1}–${x.firstWrong}`;
  return `last right after round ${x.lastRight}, first wrong after round ${x.firstWrong} (it broke in ${span})`;
}

/**
 * The trace as text.
 * @example console.log(traceReport(await traceEpisode(events, seqs, lt, deps)))
 */
export function traceReport(t: VerdictTrace): string {
  const esc = (s: string) => escapeForTerminal(s);
  const names = t.criteria.map((c) => c.criterion);
  const rows = t.points.map((p) => {
    const by = new Map(p.verdicts.map((v) => [v.criterion, v]));
    const cells = names.map((n) => {
      const v = by.get(n);
      if (p.error !== undefined || !v) return '—';
      return esc(`${v.passed ? '✓' : '✗'} ${shortValue(v.measured)}`.trim());
    });
    const what = p.source === 'final' ? `${p.round} final` : `${p.round}`;
    return [what, String(p.seq), ...cells, `${p.passed ? '✓' : '✗'} ${p.score.toFixed(2)}`];
  });
  const out = [
    `verdict trace of ${esc(t.episodeId)} (task ${esc(t.taskId)}): ${t.points.length} point(s), re-verified in ${Math.round(t.costMs.total)} ms`,
    '',
    ...(t.reexecuted
      ? [
          `every round, from a re-execution (${esc(t.reexecuted.episodeId)}, ${Math.round(t.reexecuted.durationMs)} ms): ${
            t.reexecuted.divergence
              ? `DIVERGED from the original in round ${t.reexecuted.divergence.round} (${esc(t.reexecuted.divergence.what)}): rounds from there may not show what the original did`
              : 'identical to the original'
          }`,
          '',
        ]
      : []),
    grid(['round', 'seq', ...names.map((n) => esc(cut(n, CELL))), 'task'], rows),
    '',
  ];
  for (const p of t.points) {
    if (p.error !== undefined) out.push(`round ${p.round}: not verified: ${esc(p.error)}`);
    for (const [path, why] of Object.entries(p.refused))
      out.push(`round ${p.round}: ${esc(path)} refused: ${esc(why)}`);
  }
  const w = Math.max(4, ...names.map((n) => esc(n).length));
  for (const c of t.criteria) out.push(`${esc(c.criterion).padEnd(w)}  ${rightWrongText(c)}`);
  out.push(`${'task'.padEnd(w)}  ${rightWrongText(t)}`);
  return out.join('\n');
}
