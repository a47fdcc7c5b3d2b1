/** The run overview: headline, breakdowns, grid, repeats, usage, failure-mode mix and filter. */
import type { ReportData, RunData } from '../format.js';
import { countBars, scoreBars } from './charts.js';
import { comparison } from './compare.js';
import { h, replace, section, table } from './dom.js';
import { dur, int, num, pct, time, usd } from './fmt.js';
import { episodeList, taskGrid } from './grid.js';
import { overviewHash } from './route.js';

function headline(run: RunData, first: boolean): HTMLElement {
  const o = run.overall;
  return h(
    'div',
    { class: 'headline', 'data-testid': 'run-headline', 'data-run': run.id },
    h(
      'div',
      { class: 'big' },
      h(
        'span',
        { class: 'big-num', 'data-testid': first ? 'overview-score' : 'run-score' },
        num(o.engiScore),
      ),
      h('span', { class: 'big-ci' }, `95 % interval [${num(o.low)}, ${num(o.high)}]`),
      h('span', { class: 'big-label' }, 'EngiScore'),
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', null, 'run'),
      h('dd', null, h('code', null, run.id)),
      h('dt', null, 'time'),
      h('dd', null, `${time(run.startedAt)} → ${time(run.finishedAt)}`),
      h('dt', null, 'pass rate'),
      h('dd', { 'data-testid': first ? 'overview-pass-rate' : null }, pct(o.passRate)),
      h('dt', null, 'episodes'),
      h(
        'dd',
        { 'data-testid': first ? 'overview-counts' : null },
        `${run.episodes} (${run.scored} scored, ${o.tasks} tasks)`,
      ),
      h('dt', null, 'not scored'),
      h(
        'dd',
        null,
        `${run.infraErrors} infrastructure error(s)${run.pending ? ` · ${run.pending} running` : ''}`,
      ),
    ),
  );
}

function runSection(run: RunData, first: boolean, several: boolean): HTMLElement {
  const by = (['domain', 'type', 'interface', 'app'] as const).filter((k) => run.by[k].length > 0);
  const r = run.repeats;
  return section(
    several ? `Run ${run.id}` : 'Run',
    { 'data-testid': 'run-section' },
    headline(run, first),
    h(
      'div',
      { class: 'charts' },
      by.map((k) => scoreBars(k, run.by[k])),
    ),
    r === null
      ? null
      : h(
          'div',
          { 'data-testid': 'repeats' },
          h(
            'h3',
            null,
            `Repeats (k = ${r.k}): pass@k ${pct(r.overall.passAtK)}, pass^k ${pct(r.overall.passHatK)}`,
          ),
          table(
            ['task', 'n', 'passed', 'pass@k', 'pass^k', 'flips', 'variance'],
            r.byTask.map((t) => [
              t.taskId,
              t.n,
              t.c,
              pct(t.passAtK),
              pct(t.passHatK),
              r.flips.includes(t.taskId) ? 'flips' : '',
              num(r.variance[t.taskId], 4),
            ]),
          ),
        ),
    h('h3', null, 'Usage per agent'),
    table(
      ['agent', 'episodes', 'tokens in', 'out', 'cached', 'cost', 'steps', 'rounds', 'duration'],
      run.usage.byAgent.map((u) => [
        u.key,
        u.episodes,
        int(u.input),
        int(u.output),
        int(u.cached),
        usd(u.costUsd),
        int(u.steps),
        int(u.rounds),
        dur(u.durationMs),
      ]),
      { 'data-testid': 'usage' },
    ),
  );
}

/** Renders the overview into `root`; `mode` filters the grid and the list. */
export function renderOverview(root: HTMLElement, report: ReportData, mode: string | null): void {
  const several = report.runs.length > 1;
  const counts = new Map<string, number>();
  for (const e of report.episodes) for (const m of e.modes) counts.set(m, (counts.get(m) ?? 0) + 1);
  const bars = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key, count]) => ({
      key,
      label: report.taxonomy[key]?.title ?? key,
      count,
      owner: report.taxonomy[key]?.owner ?? 'unknown',
      active: key === mode,
    }));
  const shown = mode === null ? report.episodes : report.episodes.filter((e) => e.modes.includes(mode));
  const pick = (key: string) => {
    location.hash = overviewHash(key === mode ? null : key);
  };
  replace(
    root,
    h(
      'p',
      { class: 'muted' },
      `Report of ${report.runs.map((r) => r.id).join(', ')} · made ${report.generatedAt} · engiloop ${report.engiloop}`,
    ),
    ...report.runs.map((r, i) => runSection(r, i === 0, several)),
    report.comparison ? comparison(report.comparison) : null,
    section(
      'Failure modes',
      { 'data-testid': 'modes' },
      bars.length ? countBars(bars, pick) : h('p', { class: 'muted' }, 'No failure found.'),
      h(
        'p',
        { class: 'legend' },
        ['agent', 'task', 'harness', 'infrastructure'].map((o) => h('span', { class: `chip owner-${o}` }, o)),
      ),
    ),
    section(
      mode === null ? 'Tasks × agents' : `Tasks × agents: episodes with ${mode}`,
      { 'data-testid': 'grid-section' },
      mode === null
        ? null
        : h(
            'p',
            { 'data-testid': 'mode-filter' },
            `Filtered by ${mode}: ${shown.length} of ${report.episodes.length} episodes. `,
            h('a', { href: '#/' }, 'clear filter'),
          ),
      taskGrid(shown, several),
    ),
    section(`Episodes (${shown.length})`, { 'data-testid': 'list-section' }, episodeList(shown, report)),
  );
}
