/** A GUI round's screenshot with where its pointer actions landed, and the large view (a dialog). */
import type { ActionData, ScreenshotData } from '../format.js';
import { h, s } from './dom.js';

type Mark =
  { kind: 'point'; type: string; x: number; y: number } | { kind: 'drag'; from: number[]; to: number[] };

const POINTED = new Set(['click', 'double_click', 'move', 'scroll']);

function isPair(v: unknown): v is [number, number] {
  return Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === 'number' && Number.isFinite(n));
}

/** The pointer actions of a round, as marks to draw. */
function marks(actions: ActionData[]): Mark[] {
  const out: Mark[] = [];
  for (const a of actions) {
    const t = a.action['type'];
    const x = a.action['x'];
    const y = a.action['y'];
    if (typeof t === 'string' && POINTED.has(t) && typeof x === 'number' && typeof y === 'number')
      out.push({ kind: 'point', type: t, x, y });
    else if (t === 'drag' && isPair(a.action['from']) && isPair(a.action['to']))
      out.push({ kind: 'drag', from: a.action['from'], to: a.action['to'] });
  }
  return out;
}

/** An SVG drawn over the image in the image's own pixels (its viewBox is the natural size). */
function overlay(img: HTMLImageElement, ms: Mark[]): SVGSVGElement {
  const svg = s(
    'svg',
    {
      class: 'shot-overlay',
      'data-testid': 'screenshot-overlay',
      'aria-hidden': 'true',
      preserveAspectRatio: 'none',
    },
    ms.map((m) =>
      m.kind === 'point'
        ? s(
            'g',
            {
              class: `mark ${m.type}`,
              'data-testid': 'overlay-mark',
              'data-type': m.type,
              'data-x': m.x,
              'data-y': m.y,
            },
            s('circle', { cx: m.x, cy: m.y, r: 14 }),
            s('circle', { cx: m.x, cy: m.y, r: 3, class: 'dot' }),
          )
        : s(
            'g',
            {
              class: 'mark drag',
              'data-testid': 'overlay-mark',
              'data-type': 'drag',
              'data-x': m.from[0] ?? 0,
              'data-y': m.from[1] ?? 0,
            },
            s('line', { x1: m.from[0] ?? 0, y1: m.from[1] ?? 0, x2: m.to[0] ?? 0, y2: m.to[1] ?? 0 }),
            s('circle', { cx: m.from[0] ?? 0, cy: m.from[1] ?? 0, r: 5 }),
            s('circle', { cx: m.to[0] ?? 0, cy: m.to[1] ?? 0, r: 9 }),
          ),
    ),
  );
  const size = () => {
    if (img.naturalWidth > 0) svg.setAttribute('viewBox', `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
  };
  if (img.complete) size();
  img.addEventListener('load', size);
  return svg;
}

function framed(src: string, alt: string, ms: Mark[], testid: string, lazy: boolean): HTMLElement {
  const img = h('img', { src, alt, 'data-testid': testid, loading: lazy ? 'lazy' : null, decoding: 'async' });
  return h('span', { class: 'shot-frame' }, img, overlay(img, ms));
}

/** The screenshot of round `round` with its marks; a click opens it large. */
export function screenshot(shot: ScreenshotData, round: number, actions: ActionData[]): HTMLElement {
  const alt = `Screenshot of round ${round}`;
  const ms = marks(actions);
  const windows = shot.windows.map((w) => `${w.focused ? '▣' : '□'} ${w.title}`).join(' · ');
  if (shot.file === null)
    return h('p', { class: 'muted' }, `Screenshot ${shot.digest.slice(0, 12)} is not in the store.`);
  const file = shot.file;
  const open = () => {
    const dialog = h(
      'dialog',
      { class: 'shot-dialog', 'data-testid': 'screenshot-dialog', 'aria-label': alt },
      h(
        'form',
        { method: 'dialog' },
        h('button', { type: 'submit', 'data-testid': 'dialog-close' }, 'Close'),
      ),
      framed(file, `${alt} (large)`, ms, 'screenshot-large', false),
    );
    dialog.addEventListener('close', () => dialog.remove());
    dialog.addEventListener('click', (ev) => {
      if (ev.target === dialog) dialog.close();
    });
    document.body.appendChild(dialog);
    dialog.showModal();
  };
  const frame = framed(file, alt, ms, 'screenshot', true);
  return h(
    'figure',
    { class: 'shot' },
    h('button', { type: 'button', class: 'shot-open', title: 'Open large', onclick: open }, frame),
    h('figcaption', null, `${ms.length} pointer action(s) drawn · ${windows || 'no window list'}`),
  );
}
