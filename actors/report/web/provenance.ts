/** The artifact graph drawn: a column per sandbox, nodes path@digest colored by their checks. */
import type { ProvenanceData } from '../format.js';
import { h, s } from './dom.js';
import { value } from './fmt.js';

const COL = 250;
const NODE_W = 210;
const NODE_H = 34;
const GAP = 26;

type Node = ProvenanceData['nodes'][number];

function state(n: Node): 'pass' | 'fail' | 'unchecked' {
  if (n.checks.length === 0) return 'unchecked';
  return n.checks.every((c) => c.passed) ? 'pass' : 'fail';
}

/** The provenance section body of an episode. */
export function provenanceGraph(p: ProvenanceData, sandboxes: string[]): HTMLElement {
  const cols = [...new Set([...sandboxes, ...p.nodes.map((n) => n.sandbox)])];
  const place = new Map<string, { x: number; y: number }>();
  // One row per artifact in the order they were made (inputs first), so every edge runs downwards.
  const order = [...p.nodes].sort((a, b) => (a.producedBy?.round ?? 0) - (b.producedBy?.round ?? 0));
  order.forEach((n, i) => {
    const c = Math.max(0, cols.indexOf(n.sandbox));
    place.set(n.id, { x: 10 + c * COL, y: 30 + i * (NODE_H + GAP) });
  });
  const height = 40 + Math.max(1, order.length) * (NODE_H + GAP);
  const width = Math.max(1, cols.length) * COL + 20;
  const svg = s(
    'svg',
    {
      class: 'chart provenance',
      'data-testid': 'provenance',
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': 'Artifact provenance graph',
    },
    cols.map((c, i) => s('text', { x: 10 + i * COL, y: 16, class: 'lane-title' }, c)),
    p.edges.map((e) => {
      const a = place.get(e.from);
      const b = place.get(e.to);
      if (!a || !b) return null;
      const x1 = a.x + NODE_W;
      const y1 = a.y + NODE_H / 2;
      const x2 = b.x;
      const y2 = b.y + NODE_H / 2;
      // Within one sandbox: straight down the column; across: a curve from right side to left side.
      const same = a.x === b.x;
      const d = same
        ? `M${a.x + NODE_W / 2},${a.y + NODE_H} L${b.x + NODE_W / 2},${b.y}`
        : `M${x1},${y1} C${(x1 + x2) / 2},${y1} ${(x1 + x2) / 2},${y2} ${x2},${y2}`;
      const lx = same ? a.x + NODE_W / 2 + 6 : (x1 + x2) / 2;
      const ly = same ? (a.y + NODE_H + b.y) / 2 + 4 : (y1 + y2) / 2 - 4;
      return s(
        'g',
        { class: 'edge', 'data-testid': 'provenance-edge' },
        s('title', null, `${e.from} → ${e.to}: ${e.format}, ${e.bytes} bytes, round ${e.round}`),
        s('path', { d }),
        s(
          'text',
          { x: lx, y: ly, 'text-anchor': same ? 'start' : 'middle', class: 'edge-label' },
          `${e.format} · r${e.round}`,
        ),
      );
    }),
    p.nodes.map((n) => {
      const at = place.get(n.id) ?? { x: 0, y: 0 };
      const st = state(n);
      const label = `${n.path}@${n.digest.slice(0, 8)}`;
      return s(
        'g',
        { class: `node ${st}${n.final ? ' final' : ''}`, 'data-testid': 'provenance-node', 'data-state': st },
        s(
          'title',
          null,
          `${n.sandbox}:${n.path} @${n.digest}\n${n.producedBy ? `made in round ${n.producedBy.round}${n.producedBy.command ? ` by ${n.producedBy.command}` : ''}` : 'input'}\n${n.checks.map((c) => `${c.source}${c.round === null ? '' : ` r${c.round}`}: ${c.passed ? 'passed' : 'failed'} ${c.score.toFixed(2)}`).join('\n')}`,
        ),
        s('rect', { x: at.x, y: at.y, width: NODE_W, height: NODE_H, rx: 5 }),
        s('text', { x: at.x + 8, y: at.y + 21 }, label.length > 30 ? `${label.slice(0, 29)}…` : label),
      );
    }),
  );
  const attr = p.attribution;
  return h(
    'div',
    { class: 'prov-wrap' },
    svg,
    attr
      ? h(
          'p',
          { 'data-testid': 'attribution' },
          h('strong', null, 'Attribution: '),
          Object.entries(attr)
            .map(([k, v]) => `${k} ${value(v)}`)
            .join(' · '),
        )
      : h('p', { class: 'muted' }, 'No attribution: the chain did not break.'),
  );
}
