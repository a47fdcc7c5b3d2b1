/** The verdict trace as a chart over rounds: one row per criterion, pass/fail dots, measured line. */
import type { EpisodeData } from '../format.js';
import { h, s } from './dom.js';
import { num } from './fmt.js';

const ROW = 36;
const LEFT = 170;
const WIDTH = 720;

/** The trace chart of an episode (`trace.source` said: re-verified or recorded). */
export function traceChart(ep: EpisodeData): HTMLElement {
  const { series, source } = ep.trace;
  const note = h(
    'p',
    { class: 'muted', 'data-testid': 'trace-source' },
    source === 'reverified'
      ? 'Re-verified at each snapshot (report --trace).'
      : 'As recorded: the stage checks and the final verification.',
  );
  if (series.length === 0) return h('div', null, note, h('p', { class: 'muted' }, 'No verdict over rounds.'));
  const rounds = series.flatMap((x) => x.points.map((p) => p.round));
  const lo = Math.min(1, ...rounds);
  const hi = Math.max(lo + 1, ...rounds, ep.rounds.length);
  const x = (r: number) => LEFT + ((r - lo) / (hi - lo)) * (WIDTH - LEFT - 20);
  const height = series.length * ROW + 26;
  const rows = series.map((sr, i) => {
    const y0 = i * ROW + 4;
    const mid = y0 + ROW / 2;
    const measured = sr.points.filter((p) => p.measured !== null) as { round: number; measured: number }[];
    let line = null;
    if (measured.length > 1) {
      const mMin = Math.min(...measured.map((p) => p.measured));
      const mMax = Math.max(...measured.map((p) => p.measured));
      const y = (v: number) => y0 + ROW - 6 - ((v - mMin) / (mMax - mMin || 1)) * (ROW - 12);
      line = s('polyline', {
        class: 'measure',
        points: measured.map((p) => `${x(p.round).toFixed(1)},${y(p.measured).toFixed(1)}`).join(' '),
      });
    }
    const mark = (r: number | null, cls: string, label: string) =>
      r === null
        ? null
        : s(
            'g',
            { class: cls, 'data-testid': `trace-${cls}`, 'data-round': r },
            s('line', { x1: x(r), x2: x(r), y1: y0, y2: y0 + ROW - 2 }),
            s('title', null, `${label}: round ${r}`),
          );
    return s(
      'g',
      { class: 'trace-row', 'data-criterion': sr.criterion },
      s('text', { x: LEFT - 8, y: mid + 4, 'text-anchor': 'end', class: 'label' }, sr.criterion.slice(0, 24)),
      s('line', { x1: LEFT, x2: WIDTH - 20, y1: mid, y2: mid, class: 'axis' }),
      line,
      mark(sr.lastRight, 'last-right', 'last right'),
      mark(sr.firstWrong, 'first-wrong', 'first wrong'),
      sr.points.map((p) =>
        s(
          'circle',
          { cx: x(p.round), cy: mid, r: 4, class: p.passed ? 'dot pass' : 'dot fail' },
          s(
            'title',
            null,
            `round ${p.round}: ${p.passed ? 'passed' : 'failed'}, score ${num(p.score, 2)}, measured ${num(p.measured, 4)} (${p.source})`,
          ),
        ),
      ),
    );
  });
  const ticks = [lo, Math.round((lo + hi) / 2), hi].map((r) =>
    s('text', { x: x(r), y: height - 6, 'text-anchor': 'middle', class: 'tick' }, `r${r}`),
  );
  const svg = s(
    'svg',
    {
      class: 'chart trace',
      'data-testid': 'trace-chart',
      width: WIDTH,
      height,
      viewBox: `0 0 ${WIDTH} ${height}`,
      role: 'img',
      'aria-label': 'Verdict trace over rounds',
    },
    rows,
    ticks,
  );
  return h(
    'div',
    null,
    note,
    svg,
    h(
      'p',
      { class: 'legend' },
      '● passed / failed · line: measured value · green tick: last right · red tick: first wrong',
    ),
  );
}
