/** Search across every transcript: a case-insensitive substring over the index, 200 results shown. */
import type { ReportData, SearchEntry } from '../format.js';
import { loadSearch } from './data.js';
import { h } from './dom.js';
import { episodeHref, int } from './fmt.js';

const SHOWN = 200;
const AROUND = 60;

let index: Promise<SearchEntry[]> | null = null;
let lower: string[] = [];

function snippet(t: string, at: number, len: number): HTMLElement {
  const from = Math.max(0, at - AROUND);
  const to = Math.min(t.length, at + len + AROUND);
  return h(
    'span',
    { class: 'snippet' },
    from > 0 ? '…' : '',
    t.slice(from, at),
    h('mark', null, t.slice(at, at + len)),
    t.slice(at + len, to),
    to < t.length ? '…' : '',
  );
}

/** Renders the search page; `q` is the query of the route. Resolves once results are shown. */
export async function renderSearch(root: HTMLElement, report: ReportData, q: string): Promise<void> {
  const input = h('input', {
    type: 'search',
    value: q,
    placeholder: 'command, output, agent text…',
    'aria-label': 'Search transcripts',
    'data-testid': 'search-input',
  });
  const out = h('div', { 'data-testid': 'search-results', 'aria-live': 'polite' });
  const run = async (text: string) => {
    const needle = text.trim().toLowerCase();
    if (needle === '') {
      out.replaceChildren(h('p', { class: 'muted' }, `Type to search ${report.episodes.length} episodes.`));
      return;
    }
    out.replaceChildren(h('p', { class: 'muted' }, 'Loading the index…'));
    index ??= loadSearch(report.searchChunks).then((all) => {
      lower = all.map((e) => e.t.toLowerCase());
      return all;
    });
    const all = await index;
    const hits: { e: SearchEntry; at: number }[] = [];
    let total = 0;
    for (let i = 0; i < all.length; i++) {
      const at = lower[i]?.indexOf(needle) ?? -1;
      if (at < 0) continue;
      total++;
      const e = all[i];
      if (e && hits.length < SHOWN) hits.push({ e, at });
    }
    out.replaceChildren(
      h(
        'p',
        { 'data-testid': 'search-count' },
        `${int(total)} match${total === 1 ? '' : 'es'}${total > SHOWN ? `, the first ${SHOWN} shown` : ''}`,
      ),
      h(
        'ol',
        { class: 'results' },
        hits.map(({ e, at }) =>
          h(
            'li',
            null,
            h(
              'a',
              {
                href: episodeHref(e.e, e.r),
                'data-testid': 'search-result',
                'data-id': e.e,
                'data-round': e.r,
              },
              h('span', { class: 'res-where' }, `${e.e} · round ${e.r} · ${e.k}`),
              snippet(e.t, at, needle.length),
            ),
          ),
        ),
      ),
    );
  };
  let timer = 0;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      history.replaceState(null, '', `#/search?q=${encodeURIComponent(input.value)}`);
      void run(input.value);
    }, 150);
  });
  const form = h(
    'form',
    { class: 'search-form', role: 'search' },
    input,
    h('button', { type: 'submit' }, 'Search'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    clearTimeout(timer);
    history.replaceState(null, '', `#/search?q=${encodeURIComponent(input.value)}`);
    void run(input.value);
  });
  root.replaceChildren(h('section', { class: 'card' }, h('h1', null, 'Search'), form, out));
  input.focus();
  await run(q);
}
