/** The task × agent grid and the episode list of the overview. */
import type { EpisodeRow, ReportData } from '../format.js';
import { h, type Child } from './dom.js';
import { episodeHref, num, scoreClass } from './fmt.js';

const LIST_LIMIT = 300;

/** The grid's column of an episode: its agent, and its run when the report has several. */
function column(e: EpisodeRow, multiRun: boolean): string {
  return multiRun ? `${e.runId} · ${e.agent}` : e.agent;
}

function tip(e: EpisodeRow): string {
  const modes = e.modes.length ? ` · ${e.modes.join(', ')}` : '';
  return `${e.id}: ${e.status}, score ${num(e.score, 2)}, ${e.rounds} rounds${modes}`;
}

/** Rows tasks, columns agents; a cell links each of that pair's episodes. */
export function taskGrid(episodes: EpisodeRow[], multiRun: boolean): HTMLElement {
  const cols = [...new Set(episodes.map((e) => column(e, multiRun)))].sort();
  const tasks = [...new Set(episodes.map((e) => e.taskId))].sort();
  const cell = new Map<string, EpisodeRow[]>();
  for (const e of episodes) {
    const k = `${e.taskId}\u0000${column(e, multiRun)}`;
    const list = cell.get(k);
    if (list) list.push(e);
    else cell.set(k, [e]);
  }
  const td = (task: string, col: string): Child => {
    const list = cell.get(`${task}\u0000${col}`) ?? [];
    return h(
      'td',
      { class: 'grid-cell', 'data-testid': 'grid-cell', 'data-task': task, 'data-agent': col },
      list.map((e) =>
        h(
          'a',
          {
            href: episodeHref(e.id),
            class: `ep ${scoreClass(e.passed, e.score, e.status)}${list.length > 1 ? ' small' : ''}`,
            title: tip(e),
            'data-testid': 'grid-link',
            'data-id': e.id,
            'aria-label': tip(e),
          },
          list.length > 1 ? '' : e.status === 'running' ? '…' : num(e.score, 2),
        ),
      ),
    );
  };
  return h(
    'div',
    { class: 'grid-wrap' },
    h(
      'table',
      { class: 'grid', 'data-testid': 'task-grid' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'task'),
          cols.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        null,
        tasks.map((t) =>
          h(
            'tr',
            null,
            h('th', { scope: 'row' }, t),
            cols.map((c) => td(t, c)),
          ),
        ),
      ),
    ),
  );
}

/** The episode list (id, task, agent, status, score, rounds, modes); the first 300 until asked. */
export function episodeList(episodes: EpisodeRow[], report: ReportData): HTMLElement {
  const body = h('tbody');
  const wrap = h('div', { class: 'list-wrap' });
  const fill = (n: number) => {
    body.replaceChildren(
      ...episodes.slice(0, n).map((e) =>
        h(
          'tr',
          { 'data-testid': 'episode-row', 'data-id': e.id },
          h('td', null, h('a', { href: episodeHref(e.id) }, e.id)),
          h('td', null, e.taskId),
          h('td', null, e.agent),
          h('td', null, h('span', { class: `badge ${scoreClass(e.passed, e.score, e.status)}` }, e.status)),
          h('td', { class: 'num' }, num(e.score, 2)),
          h('td', { class: 'num' }, e.rounds),
          h(
            'td',
            null,
            e.modes.map((m) =>
              h(
                'span',
                {
                  class: `chip owner-${report.taxonomy[m]?.owner ?? 'unknown'}`,
                  title: report.taxonomy[m]?.title ?? m,
                },
                m,
              ),
            ),
          ),
        ),
      ),
    );
    wrap.replaceChildren();
    if (episodes.length > n)
      wrap.appendChild(
        h(
          'button',
          { type: 'button', onclick: () => fill(episodes.length) },
          `show all ${episodes.length} episodes`,
        ),
      );
  };
  fill(LIST_LIMIT);
  const head = ['episode', 'task', 'agent', 'status', 'score', 'rounds', 'modes'];
  return h(
    'div',
    null,
    h(
      'table',
      { class: 'list', 'data-testid': 'episode-list' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          head.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      body,
    ),
    wrap,
  );
}
