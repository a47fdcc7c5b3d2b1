/** Two runs side by side: score delta, McNemar, fixed and broken tasks, per-task deltas, mode mix. */
import type { ComparisonData } from '../format.js';
import { h, section, table } from './dom.js';
import { num } from './fmt.js';

/** The comparison section of the overview (run B against run A). */
export function comparison(c: ComparisonData): HTMLElement {
  const d = c.score;
  return section(
    `Comparison: ${c.b} against ${c.a}`,
    { 'data-testid': 'comparison' },
    h(
      'dl',
      { class: 'facts' },
      h('dt', null, 'EngiScore delta'),
      h('dd', null, d ? `${num(d.delta)} [${num(d.low)}, ${num(d.high)}], p = ${num(d.p, 3)}` : '–'),
      h('dt', null, 'McNemar'),
      h('dd', null, `b = ${c.mcnemar.b}, c = ${c.mcnemar.c}, p = ${num(c.mcnemar.p, 3)}`),
      h('dt', null, 'fixed'),
      h('dd', null, c.fixed.join(', ') || '–'),
      h('dt', null, 'broken'),
      h('dd', null, c.broken.join(', ') || '–'),
      h('dt', null, 'only in A / B'),
      h('dd', null, `${c.onlyA.join(', ') || '–'} / ${c.onlyB.join(', ') || '–'}`),
    ),
    h('h3', null, 'Per task'),
    table(
      ['task', 'A', 'B', 'delta', 'passed A', 'passed B'],
      c.tasks.map((t) => [
        t.taskId,
        num(t.a, 2),
        num(t.b, 2),
        h('span', { class: t.delta > 0 ? 'up' : t.delta < 0 ? 'down' : '' }, num(t.delta, 2)),
        t.passedA ? 'yes' : 'no',
        t.passedB ? 'yes' : 'no',
      ]),
    ),
    h('h3', null, 'Failure-mode mix'),
    table(
      ['mode', 'A', 'B', 'change'],
      c.modes.map((m) => [m.mode, m.a, m.b, `${m.delta > 0 ? '+' : ''}${m.delta}`]),
    ),
  );
}
