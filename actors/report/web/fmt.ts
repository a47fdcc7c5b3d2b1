/** Number, time and text formatting for the pages. */

/** A number with at most `d` decimals, or an en dash when missing. */
export function num(x: number | null | undefined, d = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return Number.isInteger(x) ? String(x) : x.toFixed(d);
}

/** A share 0–1 as a percentage. */
export function pct(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)} %`;
}

/** A duration in ms, in the largest sensible unit. */
export function dur(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** A count with thousands separators. */
export function int(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : Math.round(x).toLocaleString('en-US');
}

/** Money in US dollars. */
export function usd(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : `$${x < 1 ? x.toFixed(4) : x.toFixed(2)}`;
}

/** A time (ms since epoch) as ISO without milliseconds. */
export function time(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '–' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Any recorded value (measured, expected, tolerance) as one short line. */
export function value(v: unknown): string {
  if (v === undefined) return '–';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return num(v, 4);
  const t = JSON.stringify(v) ?? String(v);
  return t.length > 200 ? `${t.slice(0, 199)}…` : t;
}

/** A score 0–1 as a class for coloring: pass, partial or fail. */
export function scoreClass(passed: boolean, score: number | null, status: string): string {
  if (status === 'running') return 'running';
  if (status === 'infra_error') return 'infra';
  if (passed) return 'pass';
  if (score !== null && score >= 0.5) return 'partial';
  return 'fail';
}

/** Link target of an episode, at a round when given. */
export function episodeHref(id: string, round?: number): string {
  const base = `#/episode/${encodeURIComponent(id)}`;
  return round === undefined ? base : `${base}/round/${round}`;
}
