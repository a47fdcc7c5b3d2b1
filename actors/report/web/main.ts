/**
 * The report pages' entry: loads `data/report.js`, routes the hash to a page, and in the live view
 * (`engiloop view`) reloads what the server says changed and re-renders the page in place.
 */
import type { ReportData } from '../format.js';
import { DataError, loadEpisode, loadReport } from './data.js';
import { h } from './dom.js';
import { renderEpisode, type EpisodeView } from './episode.js';
import { renderOverview } from './overview.js';
import { parseRoute, type Route } from './route.js';
import { renderSearch } from './search.js';

const app = document.getElementById('app') as HTMLElement;
let report: ReportData | null = null;
let view: EpisodeView | null = null;
let rendering = 0;
let marked = false;
// The latest navigation: a page whose data arrives after the user moved on is not drawn.
let navigation = 0;

function fail(e: unknown): void {
  const message =
    e instanceof DataError ? e.message : `The page failed: ${(e as Error)?.message ?? String(e)}`;
  app.replaceChildren(h('div', { class: 'card error', role: 'alert', 'data-testid': 'error' }, message));
}

function rendered(): void {
  document.documentElement.dataset['rendered'] = String(++rendering);
  if (!marked) {
    marked = true;
    performance.mark('engiloop:rendered');
  }
}

function title(route: Route): string {
  if (route.page === 'episode') return `${route.id} · engiloop report`;
  if (route.page === 'search') return 'Search · engiloop report';
  return 'Overview · engiloop report';
}

/** Renders the route; `keep` keeps the selected round and the scroll offsets (a live update). */
async function show(keep = false): Promise<void> {
  if (!report) return;
  const route = parseRoute(location.hash);
  document.title = title(route);
  for (const a of document.querySelectorAll('nav a'))
    a.toggleAttribute(
      'aria-current',
      a.getAttribute('href') === (route.page === 'search' ? '#/search' : '#/'),
    );
  const y = window.scrollY;
  if (route.page === 'episode') {
    if (!keep && view?.id === route.id && route.round !== null) {
      view.select(route.round, true);
      return;
    }
    const round = keep ? (view?.round() ?? route.round) : route.round;
    const top = keep ? (view?.scrollTop() ?? 0) : 0;
    const token = ++navigation;
    const ep = await loadEpisode(route.id, keep);
    if (token !== navigation) return;
    view?.dispose();
    view = renderEpisode(app, report, ep, round);
    if (keep) {
      app.querySelector<HTMLElement>('[data-testid="timeline"]')?.scrollTo(0, top);
      window.scrollTo(0, y);
    } else window.scrollTo(0, 0);
  } else {
    ++navigation;
    view?.dispose();
    view = null;
    if (route.page === 'search') await renderSearch(app, report, route.q);
    else renderOverview(app, report, route.mode);
    window.scrollTo(0, keep ? y : 0);
  }
  rendered();
}

function live(): void {
  const tag = document.getElementById('live');
  if (tag) tag.hidden = false;
  const events = new EventSource('live');
  events.onmessage = (msg: MessageEvent<string>) => {
    let key = '';
    try {
      key = String((JSON.parse(msg.data) as { key?: unknown }).key ?? '');
    } catch {
      return;
    }
    const route = parseRoute(location.hash);
    if (key === 'report')
      loadReport(true).then((r) => {
        report = r;
        return route.page === 'episode' ? undefined : show(true);
      }, fail);
    else if (route.page === 'episode' && key === `episode:${route.id}`) show(true).catch(fail);
  };
  events.onerror = () => tag?.classList.add('lost');
  events.onopen = () => tag?.classList.remove('lost');
}

async function start(): Promise<void> {
  report = await loadReport();
  window.addEventListener('hashchange', () => void show().catch(fail));
  await show();
  if (report.live) live();
}

start().catch(fail);
