/** Plain-text tables for the terminal. */
import type { EpisodeResult } from '../episode/index.js';
import type { RunSummary } from '../run/index.js';

/** Left-aligned columns separated by two spaces, with a rule under the header. */
export function table(header: string[], rows: string[][]): string {
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
export function why(r: EpisodeResult): string {
  if (r.error) return `${r.error.code}: ${r.error.message}`;
  const failed = r.verdicts.filter((v) => !v.passed);
  return failed.map((v) => `${v.criterion}: ${v.reason}`).join('; ');
}

/** The results table and the EngiScore line. */
export function resultsReport(results: readonly EpisodeResult[], summary: RunSummary): string {
  const rows = results.map((r) => [
    r.taskId,
    r.agent,
    r.status,
    r.score === null ? '—' : r.score.toFixed(3),
    String(r.rounds),
    fmtMs(r.durationMs),
    r.passed ? '' : why(r).slice(0, 140),
  ]);
  const counts = Object.entries(summary.byStatus)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const score = summary.engiScore === null ? '— (nothing scored)' : summary.engiScore.toFixed(1);
  const unscored = summary.unscoredTasks.length
    ? `\nNot scored (infrastructure faults only): ${summary.unscoredTasks.join(', ')}`
    : '';
  return `${table(['task', 'agent', 'status', 'score', 'rounds', 'duration', 'why not passed'], rows)}\n\nEpisodes: ${summary.episodes} (${counts})\nEngiScore: ${score}${unscored}`;
}
