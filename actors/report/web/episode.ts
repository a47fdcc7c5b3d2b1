/** The episode page: header and fork tree, findings, verdicts, stages, trace, timeline, provenance. */
import type { EpisodeData, FindingData, ReportData, VerdictView } from '../format.js';
import { h, replace, section, table } from './dom.js';
import { episodeHref, num, scoreClass, value } from './fmt.js';
import { keyboard } from './keys.js';
import { provenanceGraph } from './provenance.js';
import { roundDetail } from './round.js';
import { timeline } from './timeline.js';
import { traceChart } from './trace.js';

/** A rendered episode page, kept while the route stays on it. */
export interface EpisodeView {
  id: string;
  /** The selected round, or null before any. */
  round(): number | null;
  select(round: number, scroll?: boolean): void;
  /** Timeline scroll offset (restored after a live re-render). */
  scrollTop(): number;
  dispose(): void;
}

function family(ep: EpisodeData, report: ReportData): HTMLElement {
  const known = new Set(report.episodes.map((e) => e.id));
  const link = (id: string, round: number) =>
    known.has(id)
      ? h('a', { href: episodeHref(id, round) }, id)
      : h('span', { title: 'not in this report' }, id);
  const { parent, children } = ep.family;
  return h(
    'ul',
    { class: 'fork-tree', 'data-testid': 'fork-tree', 'aria-label': 'Forks' },
    h(
      'li',
      null,
      parent
        ? ['forked from ', link(parent.episodeId, parent.round), ` at round ${parent.round}`]
        : 'not a fork',
      h(
        'ul',
        null,
        h(
          'li',
          null,
          h('strong', null, ep.id),
          children.length
            ? h(
                'ul',
                null,
                children.map((c) =>
                  h(
                    'li',
                    { 'data-testid': 'fork-child' },
                    link(c.episodeId, c.round),
                    ` from round ${c.round}`,
                  ),
                ),
              )
            : null,
        ),
      ),
    ),
  );
}

function findings(ep: EpisodeData, report: ReportData): HTMLElement {
  const row = (f: FindingData) =>
    h(
      'li',
      { class: `finding owner-${f.owner}`, 'data-testid': 'finding', 'data-mode': f.mode },
      h('strong', null, report.taxonomy[f.mode]?.title ?? f.mode),
      ` (${f.mode}, ${f.owner}) — ${f.explanation} `,
      f.rounds.map((r) =>
        h(
          'a',
          {
            href: episodeHref(ep.id, r),
            class: 'round-link',
            'data-testid': 'finding-round',
            'data-round': r,
          },
          `r${r}`,
        ),
      ),
      h('span', { class: 'muted' }, ` · ${f.detector}`),
    );
  return ep.findings.length
    ? h('ul', { class: 'findings' }, ep.findings.map(row))
    : h('p', { class: 'muted' }, 'No failure found.');
}

function verdicts(vs: VerdictView[], testid: string): HTMLElement {
  return table(
    ['criterion', 'verifier', 'passed', 'measured', 'expected', 'tolerance', 'reason'],
    vs.map((v) => [
      v.criterion,
      v.verifier,
      h('span', { class: `badge ${v.passed ? 'pass' : 'fail'}` }, v.passed ? 'passed' : 'failed'),
      value(v.measured),
      value(v.expected),
      value(v.tolerance),
      v.reason,
    ]),
    { 'data-testid': testid },
  );
}

/** Renders `ep` into `root` at `round` (or its first cited round, else its first). */
export function renderEpisode(
  root: HTMLElement,
  report: ReportData,
  ep: EpisodeData,
  round: number | null,
): EpisodeView {
  const cited = new Set(ep.findings.flatMap((f) => f.rounds));
  const detail = h('div', { class: 'detail-pane', 'aria-live': 'polite' });
  let current: number | null = null;
  const select = (r: number, scroll = true) => {
    const data = ep.rounds.find((x) => x.round === r);
    if (!data) return;
    current = r;
    tl.select(r, scroll);
    detail.replaceChildren(roundDetail(ep, data));
    const hash = episodeHref(ep.id, r);
    if (location.hash !== hash) history.replaceState(null, '', hash);
  };
  const tl = timeline(ep, cited, (r) => select(r, false));
  const v = ep.verification;
  replace(
    root,
    h(
      'section',
      { class: 'card ep-head', 'data-testid': 'episode-header' },
      h('h1', null, ep.title || ep.taskId),
      h(
        'p',
        null,
        h(
          'span',
          { class: `badge ${scoreClass(ep.passed, ep.score, ep.status)}`, 'data-testid': 'episode-status' },
          ep.status,
        ),
        ` score ${num(ep.score, 2)} · task ${ep.taskId} · agent ${ep.agent} · ${ep.interface} · run ${ep.runId} · ${ep.rounds.length} rounds · ${ep.events} events`,
        ep.running ? h('span', { class: 'live-tag' }, ' running') : null,
      ),
      h('p', { class: 'objective' }, ep.objective),
      ep.error
        ? h('p', { class: 'warn', 'data-testid': 'episode-error' }, `Infrastructure fault: ${ep.error}`)
        : null,
      family(ep, report),
    ),
    section('Failure modes', { 'data-testid': 'findings' }, findings(ep, report)),
    section(
      'Final verdicts',
      null,
      v
        ? [
            h('p', null, `score ${num(v.score, 2)} · ${v.passed ? 'passed' : 'failed'}`),
            verdicts(v.verdicts, 'verdicts'),
          ]
        : h('p', { class: 'muted' }, 'Not verified.'),
    ),
    ep.stages.length
      ? section(
          'Stage checks',
          { 'data-testid': 'stages' },
          ep.stages.map((st) =>
            h(
              'div',
              { class: 'stage' },
              h(
                'h3',
                null,
                `${st.stage} · round ${st.round} · `,
                h('span', { class: `badge ${st.passed ? 'pass' : 'fail'}` }, st.passed ? 'passed' : 'failed'),
                ` ${num(st.score, 2)}${st.halt ? ' · halted' : ''}`,
                st.blockedBy
                  ? ` · blocked by ${st.blockedBy.stage} (${num(st.blockedBy.score, 2)} < ${st.blockedBy.min})`
                  : '',
              ),
              verdicts(st.verdicts, 'stage-verdicts'),
            ),
          ),
        )
      : null,
    section('Verdict trace', null, traceChart(ep)),
    section(
      'Timeline',
      { class: 'card timeline-card' },
      h('p', { class: 'muted' }, 'j/↓ next · k/↑ previous · n next failure · g jump to round'),
      h('div', { class: 'split' }, tl.el, detail),
    ),
    ep.provenance ? section('Provenance', null, provenanceGraph(ep.provenance, ep.sandboxes)) : null,
  );
  const order = ep.rounds.map((r) => r.round);
  const flagged = ep.rounds.filter((r) => cited.has(r.round) || r.modes.length > 0).map((r) => r.round);
  const stop = keyboard(
    tl.el,
    order,
    flagged,
    () => current,
    (r) => select(r, true),
  );
  const start = round ?? [...cited].sort((a, b) => a - b)[0] ?? order[0];
  if (start !== undefined) select(start, true);
  return {
    id: ep.id,
    round: () => current,
    select,
    scrollTop: () => tl.scroller.scrollTop,
    dispose: stop,
  };
}
