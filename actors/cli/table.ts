/** Plain-text tables for the terminal. */
import type { EpisodeResult } from '../episode/index.js';
import type { RunSummary } from '../run/index.js';
import { escapeForTerminal } from '../terminal.js';

/**
 * Left-aligned columns separated by two spaces, with a rule under the header. Cells are escaped
 * for the terminal (control characters shown, one line each) before the widths are measured.
 */
export function table(header: string[], rawRows: string[][]): string {
  const rows = rawRows.map((r) => r.map((c) => escapeForTerminal(c)));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const fmtMs = (ms: number): string =>
  ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 60_000).toFixed(1)} min`;

/** Why an episode did not pass, in one line. */
function why(r: EpisodeResult): string {
  if (r.error) return `${r.error.code}: ${r.error.message}`;
  if (r.attribution)
    return `chain broke${r.attribution.stage ? ` at stage ${r.attribution.stage}` : ''} (${r.attribution.cause.replace('_', ' ')}${r.attribution.artifact ? `, ${r.attribution.artifact}` : ''}): ${r.attribution.detail}`;
  const failed = r.verdicts.filter((v) => !v.passed);
  return failed.map((v) => `${v.criterion}: ${v.reason}`).join('; ');
}

/** The results table and the EngiScore line. */
export function resultsReport(results: readonly EpisodeResult[], summary: RunSummary): string {
  // Token and cost columns appear only when a model-backed agent ran.
  const llm = results.some((r) => r.usage);
  const k = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : String(n));
  const usd = (c: number | null) => (c === null ? 'n/a' : `$${c.toFixed(4)}`);
  const rows = results.map((r) => [
    r.taskId,
    r.agent,
    r.status,
    r.score === null ? '—' : r.score.toFixed(3),
    String(r.rounds),
    fmtMs(r.durationMs),
    ...(llm
      ? r.usage
        ? [
            `${k(r.usage.input)}/${k(r.usage.output)}/${k(r.usage.cached)}`,
            usd(r.usage.costUsd),
            String(r.usage.retries),
          ]
        : ['—', '—', '—']
      : []),
    `${r.parent ? `[fork of ${r.parent.episodeId}@${r.parent.round}] ` : ''}${r.passed ? '' : why(r).slice(0, 140)}`,
  ]);
  const counts = Object.entries(summary.byStatus)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const score = summary.engiScore === null ? '— (nothing scored)' : summary.engiScore.toFixed(1);
  const unscored = summary.unscoredTasks.length
    ? `\nNot scored (infrastructure faults only): ${summary.unscoredTasks.join(', ')}`
    : '';
  let totals = '';
  if (llm) {
    const us = results.flatMap((r) => (r.usage ? [r.usage] : []));
    const sum = (f: (u: (typeof us)[number]) => number) => us.reduce((a, u) => a + f(u), 0);
    const cost = us.some((u) => u.costUsd === null) ? null : sum((u) => u.costUsd ?? 0);
    totals = `\nTokens: ${sum((u) => u.input)} in (${sum((u) => u.cached)} cached), ${sum((u) => u.output)} out over ${sum((u) => u.calls)} calls; cost ${usd(cost)}; provider retries ${sum((u) => u.retries)}`;
  }
  const head = ['task', 'agent', 'status', 'score', 'rounds', 'duration'];
  if (llm) head.push('tokens in/out/cached', 'cost', 'retries');
  head.push('why not passed');
  return `${table(head, rows)}\n\nEpisodes: ${summary.episodes} (${counts})\nEngiScore: ${score}${totals}${unscored}`;
}
