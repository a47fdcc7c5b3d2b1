/**
 * The episode's timeline, virtualized: a scroll box with fixed-height rows where only the rows in
 * view (and a few either side) exist in the DOM, so an episode of thousands of rounds scrolls as
 * lightly as one of ten. One lane per sandbox; a hand-off is an arrow between two lanes.
 */
import type { EpisodeData, HandoffData, RoundData } from '../format.js';
import { h, s } from './dom.js';

// Row height in px (CSS `.tl-row` agrees).
const ROW = 28;
const OVERSCAN = 12;
const LABEL = 64;
const LANE = 110;

/** A rendered timeline: its element and the selection. */
export interface Timeline {
  el: HTMLElement;
  scroller: HTMLElement;
  /** Marks a round selected; `scroll` brings its row into view. */
  select(round: number, scroll: boolean): void;
}

function handoffTitle(x: HandoffData): string {
  const check = x.checkedBy
    ? `${x.checkedBy.stage}: ${x.checkedBy.passed ? 'passed' : 'failed'} (${x.checkedBy.score.toFixed(2)})`
    : 'not checked';
  return `${x.from.sandbox}:${x.from.path} → ${x.to.sandbox}:${x.to.path} · ${x.digest.slice(0, 12)} · ${x.format} · ${check}`;
}

/** Builds the timeline of an episode; `onSelect` is called with the round a click picked. */
export function timeline(ep: EpisodeData, cited: Set<number>, onSelect: (round: number) => void): Timeline {
  const lanes = ep.sandboxes.length ? ep.sandboxes : ['default'];
  const laneX = (name: string) => {
    const i = lanes.indexOf(name);
    return LABEL + (i < 0 ? 0 : i) * LANE + LANE / 2;
  };
  const byRound = new Map<number, HandoffData[]>();
  for (const x of ep.handoffs) byRound.set(x.round, [...(byRound.get(x.round) ?? []), x]);
  const index = new Map(ep.rounds.map((r, i) => [r.round, i]));
  const shown = new Map<number, HTMLElement>();
  let selected = -1;

  const space = h('div', { class: 'tl-space', style: `height:${ep.rounds.length * ROW}px` });
  const scroller = h(
    'div',
    {
      class: 'tl-scroll',
      style: `height:${Math.min(520, ep.rounds.length * ROW + 2)}px`,
      'data-testid': 'timeline',
      tabindex: 0,
      'aria-label': 'Rounds (j/k to move)',
    },
    space,
  );
  const head = h(
    'div',
    { class: 'tl-head' },
    h('span', { class: 'tl-num' }, 'round'),
    lanes.map((l, i) =>
      h('span', { class: 'tl-lane-head', style: `left:${LABEL + i * LANE}px`, title: l }, l),
    ),
    h(
      'span',
      { class: 'tl-sum', style: `left:${LABEL + lanes.length * LANE}px` },
      'agent · actions · hand-offs',
    ),
  );

  const row = (r: RoundData, i: number): HTMLElement => {
    const perLane = new Map<string, { n: number; bad: boolean }>();
    for (const a of r.actions) {
      const lane = lanes.includes(a.sandbox) ? a.sandbox : (lanes[0] ?? 'default');
      const c = perLane.get(lane) ?? { n: 0, bad: false };
      c.n += 1;
      c.bad ||= a.timedOut || (a.exitCode !== null && a.exitCode !== 0) || a.fault !== null;
      perLane.set(lane, c);
    }
    const hs = byRound.get(r.round) ?? [];
    const flagged = cited.has(r.round) || r.modes.length > 0;
    const summary = [
      r.decision?.kind ?? '',
      r.actions[0]?.label ?? '',
      ...hs.map((x) => `⇢ ${x.to.path} (${x.format}) ${x.checkedBy ? (x.checkedBy.passed ? '✓' : '✗') : ''}`),
    ]
      .filter(Boolean)
      .join(' · ');
    const el = h(
      'div',
      {
        class: `tl-row${flagged ? ' flagged' : ''}${i === selected ? ' selected' : ''}`,
        style: `top:${i * ROW}px`,
        'data-testid': 'timeline-row',
        'data-round': r.round,
        'data-flagged': flagged ? 'true' : null,
        onclick: () => onSelect(r.round),
      },
      h('span', { class: 'tl-num' }, flagged ? '⚑ ' : '', String(r.round)),
      [...perLane].map(([lane, c]) =>
        h(
          'span',
          {
            class: `tl-act${c.bad ? ' bad' : ''}`,
            style: `left:${laneX(lane) - 14}px`,
            title: `${c.n} action(s) in ${lane}${c.bad ? ', one failed' : ''}`,
            'data-testid': 'timeline-actions',
          },
          String(c.n),
        ),
      ),
      hs.length
        ? s(
            'svg',
            { class: 'tl-handoffs', width: LABEL + lanes.length * LANE, height: ROW, 'aria-hidden': 'true' },
            hs.map((x) => {
              const x1 = laneX(x.from.sandbox);
              const x2 = laneX(x.to.sandbox);
              const dir = x2 >= x1 ? 1 : -1;
              const bad = x.checkedBy !== null && !x.checkedBy.passed;
              return s(
                'g',
                { class: `handoff${bad ? ' bad' : ''}`, 'data-testid': 'handoff' },
                s('title', null, handoffTitle(x)),
                s('line', { x1, x2: x2 - dir * 6, y1: ROW - 7, y2: ROW - 7 }),
                s('polygon', {
                  points: `${x2},${ROW - 7} ${x2 - dir * 7},${ROW - 11} ${x2 - dir * 7},${ROW - 3}`,
                }),
              );
            }),
          )
        : null,
      h(
        'span',
        {
          class: 'tl-sum',
          style: `left:${LABEL + lanes.length * LANE}px`,
          title: hs.map(handoffTitle).join('\n') || null,
        },
        summary,
      ),
    );
    return el;
  };

  const update = () => {
    const top = scroller.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(ep.rounds.length - 1, Math.ceil((top + scroller.clientHeight) / ROW) + OVERSCAN);
    for (const [i, el] of shown)
      if (i < first || i > last) {
        el.remove();
        shown.delete(i);
      }
    for (let i = first; i <= last; i++) {
      const r = ep.rounds[i];
      if (r === undefined || shown.has(i)) continue;
      const el = row(r, i);
      shown.set(i, el);
      space.appendChild(el);
    }
  };
  scroller.addEventListener('scroll', update, { passive: true });
  // The box has no height until it is in the document: fill it once it is laid out.
  new ResizeObserver(update).observe(scroller);

  return {
    el: h('div', { class: 'timeline-wrap' }, head, scroller),
    scroller,
    select(round, scroll) {
      const i = index.get(round);
      if (i === undefined) return;
      shown.get(selected)?.classList.remove('selected');
      selected = i;
      shown.get(i)?.classList.add('selected');
      if (scroll) {
        const top = i * ROW;
        const view = scroller.clientHeight || 10 * ROW;
        if (top < scroller.scrollTop) scroller.scrollTop = top;
        else if (top + ROW > scroller.scrollTop + view) scroller.scrollTop = top + ROW - view;
      }
      update();
    },
  };
}
