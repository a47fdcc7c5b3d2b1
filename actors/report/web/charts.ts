/** Small SVG charts: horizontal bars with interval whiskers, and count bars colored by owner. */
import type { ScoreData } from '../format.js';
import { h, s } from './dom.js';
import { num, pct } from './fmt.js';

const ROW = 22;
const LABEL = 150;
const PLOT = 300;
const TAIL = 150;

function clip(t: string, n: number): string {
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

/** EngiScore per slice (0–100) as bars, the 95 % interval as a whisker. */
export function scoreBars(title: string, rows: ScoreData[]): HTMLElement {
  const height = rows.length * ROW + 24;
  const x = (v: number) => LABEL + (Math.max(0, Math.min(100, v)) / 100) * PLOT;
  const svg = s(
    'svg',
    {
      class: 'chart',
      width: LABEL + PLOT + TAIL,
      height,
      viewBox: `0 0 ${LABEL + PLOT + TAIL} ${height}`,
      role: 'img',
      'aria-label': `EngiScore by ${title}`,
    },
    [0, 50, 100].map((t) =>
      s(
        'g',
        null,
        s('line', { x1: x(t), x2: x(t), y1: 0, y2: height - 18, class: 'axis' }),
        s('text', { x: x(t), y: height - 4, 'text-anchor': 'middle', class: 'tick' }, String(t)),
      ),
    ),
    rows.map((r, i) => {
      const y = i * ROW + 3;
      const v = r.engiScore;
      return s(
        'g',
        { class: 'bar-row' },
        s('title', null, `${r.key}: ${num(v)} [${num(r.low)}, ${num(r.high)}], pass ${pct(r.passRate)}`),
        s('text', { x: LABEL - 6, y: y + 13, 'text-anchor': 'end', class: 'label' }, clip(r.key, 22)),
        v === null ? null : s('rect', { x: LABEL, y, width: x(v) - LABEL, height: ROW - 8, class: 'bar' }),
        r.low === null || r.high === null
          ? null
          : s(
              'g',
              { class: 'whisker' },
              s('line', { x1: x(r.low), x2: x(r.high), y1: y + 7, y2: y + 7 }),
              s('line', { x1: x(r.low), x2: x(r.low), y1: y + 2, y2: y + 12 }),
              s('line', { x1: x(r.high), x2: x(r.high), y1: y + 2, y2: y + 12 }),
            ),
        s(
          'text',
          { x: LABEL + PLOT + 6, y: y + 13, class: 'val' },
          `${num(v)} · ${r.episodes} ep · ${pct(r.passRate)}`,
        ),
      );
    }),
  );
  return h('figure', { class: 'chart-fig' }, h('figcaption', null, `by ${title}`), svg);
}

/** One bar of {@link countBars}. */
export interface CountBar {
  key: string;
  label: string;
  count: number;
  owner: string;
  active: boolean;
}

/** Counts as bars colored by owner; each bar is a button calling `onPick(key)`. */
export function countBars(bars: CountBar[], onPick: (key: string) => void): HTMLElement {
  const max = Math.max(1, ...bars.map((b) => b.count));
  return h(
    'div',
    { class: 'count-bars', role: 'group', 'aria-label': 'Failure modes (click to filter)' },
    bars.map((b) =>
      h(
        'button',
        {
          type: 'button',
          class: `count-bar${b.active ? ' active' : ''}`,
          'data-testid': 'mode-bar',
          'data-mode': b.key,
          'aria-pressed': b.active ? 'true' : 'false',
          title: `${b.key} (${b.owner}): ${b.count} episode(s)`,
          onclick: () => onPick(b.key),
        },
        h('span', { class: 'count-label' }, b.label),
        h(
          'span',
          { class: 'count-track' },
          h('span', {
            class: `count-fill owner-${b.owner}`,
            style: `width:${((b.count / max) * 100).toFixed(1)}%`,
          }),
        ),
        h('span', { class: 'count-val' }, `${b.count} · ${b.owner}`),
      ),
    ),
  );
}
