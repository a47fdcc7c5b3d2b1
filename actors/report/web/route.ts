/** Hash routes: `#/`, `#/?mode=<id>`, `#/episode/<id>[/round/<n>]`, `#/search?q=<text>`. */

/** A parsed route. */
export type Route =
  | { page: 'overview'; mode: string | null }
  | { page: 'episode'; id: string; round: number | null }
  | { page: 'search'; q: string };

function decode(t: string): string {
  try {
    return decodeURIComponent(t);
  } catch {
    return t;
  }
}

/** Parses `location.hash`. */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'episode' && parts[1] !== undefined) {
    const n = parts[2] === 'round' ? Number(parts[3]) : NaN;
    return { page: 'episode', id: decode(parts[1]), round: Number.isInteger(n) ? n : null };
  }
  if (parts[0] === 'search') return { page: 'search', q: params.get('q') ?? '' };
  return { page: 'overview', mode: params.get('mode') };
}

/** The hash of the overview, filtered by a failure mode or not. */
export function overviewHash(mode: string | null): string {
  return mode === null ? '#/' : `#/?mode=${encodeURIComponent(mode)}`;
}
