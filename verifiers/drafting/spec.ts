/**
 * What a drawing is expected to hold, and matching it against a read DXF: geometry items (circles,
 * arcs, lines, polylines) within a position tolerance, dimension values, required texts, and layers
 * with colour and linetype. Used by `dxf.drawing` (one check at a time) and `drafting.score`.
 */
import { z } from 'zod';
import { fmt } from '../judge-value.js';
import { plainMtext, type DxfDimension, type DxfModel, type P2 } from './dxf-read.js';

const p2 = z.tuple([z.number(), z.number()]);

/** One expected geometric item; `layer`, when given, is checked as presentation. */
export const GeometryItem = z.union([
  z.object({
    circle: z.union([
      z.object({ center: p2, radius: z.number().positive() }),
      z.object({ center: p2, diameter: z.number().positive() }),
    ]),
    layer: z.string().optional(),
  }),
  z.object({
    arc: z.object({ center: p2, radius: z.number().positive(), start: z.number(), end: z.number() }),
    layer: z.string().optional(),
  }),
  z.object({ line: z.object({ from: p2, to: p2 }), layer: z.string().optional() }),
  /** Every edge must be drawn (as LINEs or polyline edges, in either direction). */
  z.object({
    polyline: z.object({ points: z.array(p2).min(2), closed: z.boolean().default(false) }),
    layer: z.string().optional(),
  }),
]);
export type GeometryItem = z.infer<typeof GeometryItem>;

/** An expected dimension: its value and, optionally, its kind and tolerance. */
export const DimensionItem = z.object({
  value: z.number().nonnegative(),
  kind: z.enum(['linear', 'aligned', 'angular', 'diameter', 'radius', 'ordinate']).optional(),
  tol: z.number().nonnegative().optional(),
});
export type DimensionItem = z.infer<typeof DimensionItem>;

/** A required text: a substring (case-insensitive) or a `/regex/flags`. */
export const TextItem = z.string().min(1);

/** An expected layer; colour (ACI) and linetype are checked only when given. */
export const LayerItem = z.object({
  name: z.string().min(1),
  color: z.number().int().optional(),
  linetype: z.string().optional(),
});
export type LayerItem = z.infer<typeof LayerItem>;

/** Outcome of matching one expected item. */
export interface ItemResult {
  item: string;
  ok: boolean;
  /** What was found instead, when useful. */
  note?: string;
}

const d = (a: P2, b: P2): number => Math.hypot(a[0] - b[0], a[1] - b[1]);
const fmtP = (p: readonly number[]): string => `(${p.map(fmt).join(', ')})`;

/**
 * Matches geometry items. Returns one result per item, and the layers of matched entities (for
 * presentation): `layerOk` is undefined when the item names no layer or was not found.
 */
export function matchGeometry(
  m: DxfModel,
  items: readonly GeometryItem[],
  tol: number,
): (ItemResult & { layerOk?: boolean })[] {
  return items.map((it) => {
    // Only a found item can be on the right or wrong layer; a missing one is a geometry loss alone.
    const layerOk = (layers: string[]): boolean | undefined =>
      it.layer === undefined || layers.length === 0 ? undefined : layers.every((l) => l === it.layer);
    if ('circle' in it) {
      const r = 'radius' in it.circle ? it.circle.radius : it.circle.diameter / 2;
      const hit = m.circles.find(
        (c) => d(c.center, it.circle.center) <= tol && Math.abs(c.radius - r) <= tol,
      );
      const res = { item: `circle r=${r} at ${fmtP(it.circle.center)}`, ok: hit !== undefined };
      const lo = layerOk(hit ? [hit.layer] : []);
      return lo === undefined ? res : { ...res, layerOk: lo };
    }
    if ('arc' in it) {
      const a = it.arc;
      const ang = (x: number, y: number): boolean => Math.abs(((((x - y) % 360) + 540) % 360) - 180) <= 0.5;
      const hit = m.arcs.find(
        (c) =>
          d(c.center, a.center) <= tol &&
          Math.abs(c.radius - a.radius) <= tol &&
          ang(c.start, a.start) &&
          ang(c.end, a.end),
      );
      const res = {
        item: `arc r=${a.radius} at ${fmtP(a.center)} ${a.start}°–${a.end}°`,
        ok: hit !== undefined,
      };
      const lo = layerOk(hit ? [hit.layer] : []);
      return lo === undefined ? res : { ...res, layerOk: lo };
    }
    const pts = 'line' in it ? [it.line.from, it.line.to] : it.polyline.points;
    const closed = 'polyline' in it && it.polyline.closed;
    const edges: [P2, P2][] = [];
    for (let i = 0; i + 1 < pts.length; i++) edges.push([pts[i]!, pts[i + 1]!]);
    if (closed && pts.length > 2) edges.push([pts.at(-1)!, pts[0]!]);
    const layers: string[] = [];
    const missing = edges.filter(([a, b]) => {
      const hit = m.segments.find(
        (s) => (d(s.a, a) <= tol && d(s.b, b) <= tol) || (d(s.a, b) <= tol && d(s.b, a) <= tol),
      );
      if (hit !== undefined) layers.push(hit.layer);
      return hit === undefined;
    });
    const name =
      'line' in it
        ? `line ${fmtP(pts[0]!)}–${fmtP(pts[1]!)}`
        : `${closed ? 'closed ' : ''}polyline through ${pts.map(fmtP).join(' ')}`;
    const res: ItemResult = {
      item: name,
      ok: missing.length === 0,
      ...(missing.length === 0 || 'line' in it
        ? {}
        : { note: `${missing.length} of ${edges.length} edges missing` }),
    };
    const lo = layerOk(missing.length === 0 ? layers : []);
    return lo === undefined ? res : { ...res, layerOk: lo };
  });
}

/**
 * The numbers a dimension's text override shows instead of its measurement, or null when it shows
 * the measurement (no override, or `<>` in it). A suppressed text (one space) shows nothing.
 */
export function overrideNumbers(d: Pick<DxfDimension, 'text'>): number[] | null {
  if (d.text === '' || d.text.includes('<>')) return null;
  const t = plainMtext(d.text).replace(/%%[cdpCDP]/g, ' ');
  return (t.match(/[-+]?(?:\d+\.?\d*|\.\d+)/g) ?? []).map(Number).filter(Number.isFinite);
}

/**
 * Matches expected dimension values one to one against the drawing's dimensions. A dimension's
 * value is measured from its definition points; one whose text is overridden with a number other
 * than that measurement shows a value it does not measure, and matches nothing.
 */
export function matchDimensions(m: DxfModel, items: readonly DimensionItem[], tol: number): ItemResult[] {
  const free = [...m.dimensions];
  const shows = (x: DxfDimension, t: number): boolean => {
    const o = overrideNumbers(x);
    return o === null || o.some((n) => Math.abs(n - x.value) <= t);
  };
  return items.map((it) => {
    const t = it.tol ?? tol;
    const kindOk = (x: DxfDimension): boolean => it.kind === undefined || x.kind === it.kind;
    const i = free.findIndex((x) => kindOk(x) && Math.abs(x.value - it.value) <= t && shows(x, t));
    const item = `${it.kind ?? 'dimension'} ${it.value}`;
    if (i >= 0) {
      free.splice(i, 1);
      return { item, ok: true };
    }
    // Why not: a text that claims the value over other definition points, or the right points
    // under another text.
    const claims = free.find(
      (x) => kindOk(x) && (overrideNumbers(x) ?? []).some((n) => Math.abs(n - it.value) <= t),
    );
    if (claims !== undefined)
      return {
        item,
        ok: false,
        note: `a dimension's text is overridden to "${claims.text}" but its definition points measure ${fmt(claims.value)}: the text is not evidence`,
      };
    const hidden = free.find((x) => kindOk(x) && Math.abs(x.value - it.value) <= t);
    if (hidden !== undefined)
      return {
        item,
        ok: false,
        note: `the dimension measuring ${fmt(hidden.value)} shows "${hidden.text}" instead (text override)`,
      };
    return { item, ok: false };
  });
}

/** Finds each required text in TEXT/MTEXT content. */
export function matchTexts(m: DxfModel, items: readonly string[]): ItemResult[] {
  return items.map((it) => {
    const re = /^\/(.*)\/([a-z]*)$/.exec(it);
    const ok = m.texts.some((t) =>
      re === null ? t.text.toLowerCase().includes(it.toLowerCase()) : new RegExp(re[1]!, re[2]).test(t.text),
    );
    return { item: `text ${JSON.stringify(it)}`, ok };
  });
}

/** Checks each expected layer: present, and its colour and linetype when given (one result each). */
export function matchLayers(m: DxfModel, items: readonly LayerItem[]): ItemResult[] {
  const out: ItemResult[] = [];
  for (const it of items) {
    const l = m.layers.find((x) => x.name.toLowerCase() === it.name.toLowerCase());
    out.push({ item: `layer ${it.name}`, ok: l !== undefined });
    if (it.color !== undefined)
      out.push({
        item: `layer ${it.name} colour ${it.color}`,
        ok: l !== undefined && Math.abs(l.color) === it.color,
        ...(l === undefined ? {} : { note: `colour ${l.color}` }),
      });
    if (it.linetype !== undefined)
      out.push({
        item: `layer ${it.name} linetype ${it.linetype}`,
        ok: l !== undefined && l.linetype.toLowerCase() === it.linetype.toLowerCase(),
        ...(l === undefined ? {} : { note: `linetype ${l.linetype}` }),
      });
  }
  return out;
}

/** Fraction of results that are ok (1 when there are none). */
export function fraction(rs: readonly { ok: boolean }[]): number {
  return rs.length === 0 ? 1 : rs.filter((r) => r.ok).length / rs.length;
}
