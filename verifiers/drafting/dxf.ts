/**
 * `dxf.drawing`: reopens a delivered DXF with `dxf-parser` and checks one aspect: `layers` (present,
 * colour, linetype), `entities` (counts by type and/or layer), `geometry` (circles, arcs, lines,
 * polylines at positions within a tolerance), `dimensions` (values measured from the definition
 * points), `texts` (TEXT/MTEXT content) or `extents` (size of the geometry).
 */
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { fmt, round, vec } from '../judge-value.js';
import type { Verdict } from '../types.js';
import { readDxf, type DxfModel } from './dxf-read.js';
import {
  DimensionItem,
  GeometryItem,
  LayerItem,
  matchDimensions,
  matchGeometry,
  matchLayers,
  matchTexts,
  overrideNumbers,
  TextItem,
  type ItemResult,
} from './spec.js';

const timeout = { parse_timeout_sec: z.number().positive().default(20) };
const EntityRule = z
  .object({
    /** DXF entity type, e.g. `CIRCLE`, `DIMENSION`. */
    type: z.string().optional(),
    layer: z.string().optional(),
    min: z.number().int().nonnegative().default(1),
    max: z.number().int().nonnegative().optional(),
  })
  .refine((r) => r.type !== undefined || r.layer !== undefined, 'give type, layer or both');

/** Params of `dxf.drawing`, by `check`. */
const DxfDrawingParams = z.discriminatedUnion('check', [
  z.object({ check: z.literal('layers'), expected: z.array(LayerItem).min(1), ...timeout }),
  z.object({ check: z.literal('entities'), expected: z.array(EntityRule).min(1), ...timeout }),
  z.object({
    check: z.literal('geometry'),
    expected: z.array(GeometryItem).min(1),
    /** Position and size tolerance, in drawing units. */
    tol: z.number().nonnegative().default(0.01),
    ...timeout,
  }),
  z.object({
    check: z.literal('dimensions'),
    expected: z.array(DimensionItem).min(1),
    tol: z.number().nonnegative().default(0.01),
    ...timeout,
  }),
  z.object({ check: z.literal('texts'), expected: z.array(TextItem).min(1), ...timeout }),
  z.object({
    check: z.literal('extents'),
    /** Size [width, height] of the geometry (segments, circles, arcs; not dimensions or texts). */
    expected: z.tuple([z.number().nonnegative(), z.number().nonnegative()]),
    min: z.tuple([z.number(), z.number()]).optional(),
    abs_tol: z.number().nonnegative().default(0.01),
    ...timeout,
  }),
]);
export type DxfDrawingParams = z.infer<typeof DxfDrawingParams>;

/** The `dxf.drawing` verifier. */
export const dxfDrawing = defineVerifier({
  name: 'dxf.drawing',
  description:
    'Reopens a DXF with dxf-parser: layers, entity counts, geometry positions, dimension values (from their definition points), texts, extents (from the entities)',
  params: DxfDrawingParams,
  async judge({ params: p, file }) {
    // A corrupt file or a time-out becomes a failing verdict in defineVerifier, naming the file.
    const m = await readDxf(file.bytes, { limitMs: p.parse_timeout_sec * 1000 });
    return judge(file.rel, p, m);
  },
});

function judge(file: string, p: DxfDrawingParams, m: DxfModel): Verdict {
  const items = (rs: ItemResult[], measured: unknown, tolerance: unknown): Verdict => {
    const bad = rs.filter((r) => !r.ok);
    const ok = bad.length === 0;
    return {
      passed: ok,
      score: ok ? 1 : 0,
      measured,
      expected: p.expected,
      tolerance,
      reason: `${file}: ${rs.length - bad.length} of ${rs.length} ${p.check} as expected${ok ? '' : `; missing or wrong: ${bad.map((r) => r.item + (r.note ? ` (${r.note})` : '')).join('; ')}`}`,
    };
  };
  switch (p.check) {
    case 'layers':
      return items(matchLayers(m, p.expected), m.layers, 'exact name (any case), ACI colour, linetype');
    case 'entities': {
      const rs = p.expected.map((r) => {
        const n = m.entities.filter(
          (e) =>
            (r.type === undefined || e.type === r.type) && (r.layer === undefined || e.layer === r.layer),
        ).length;
        const ok = n >= r.min && (r.max === undefined || n <= r.max);
        const what = [r.type ?? 'entities', r.layer === undefined ? '' : `on ${r.layer}`].join(' ').trim();
        return {
          item: `${what}: ${n} (expected ${r.max === undefined ? `≥ ${r.min}` : `${r.min}–${r.max}`})`,
          ok,
        };
      });
      const counts: Record<string, number> = {};
      for (const e of m.entities) counts[`${e.type}@${e.layer}`] = (counts[`${e.type}@${e.layer}`] ?? 0) + 1;
      const v = items(rs, counts, 'counts within [min, max]');
      return { ...v, reason: `${file}: ${rs.map((r) => r.item).join('; ')}` };
    }
    case 'geometry':
      return items(
        matchGeometry(m, p.expected, p.tol).map((r) =>
          r.layerOk === false ? { ...r, ok: false, note: 'on the wrong layer' } : r,
        ),
        { segments: m.segments.length, circles: m.circles.length, arcs: m.arcs.length },
        { position: p.tol },
      );
    case 'dimensions':
      return items(
        matchDimensions(m, p.expected, p.tol),
        m.dimensions.map((x) => ({
          kind: x.kind,
          value: round(x.value),
          layer: x.layer,
          ...(overrideNumbers(x) === null ? {} : { text: x.text }),
        })),
        { abs: p.tol },
      );
    case 'texts':
      return items(
        matchTexts(m, p.expected),
        m.texts.map((t) => t.text),
        'substring, any case (or /regex/)',
      );
    case 'extents': {
      if (m.extents === null)
        return {
          passed: false,
          score: 0,
          measured: { segments: 0, circles: 0, arcs: 0 },
          expected: p.expected,
          reason: `${file} has no geometry to measure`,
        };
      const e = m.extents;
      const size = [e.max[0] - e.min[0], e.max[1] - e.min[1]];
      const off = (box: { min: number[]; max: number[] }): number =>
        Math.max(
          ...[box.max[0]! - box.min[0]!, box.max[1]! - box.min[1]!].map((s, i) =>
            Math.abs(s - p.expected[i]!),
          ),
          ...(p.min ?? []).map((x, i) => Math.abs(box.min[i]! - x)),
        );
      const worst = off(e);
      const ok = worst <= p.abs_tol;
      // $EXTMIN / $EXTMAX are what the file says; only the entities are measured.
      const h = m.headerExtents;
      const claimed = !ok && h !== null && off(h) <= p.abs_tol;
      return {
        passed: ok,
        score: ok ? 1 : 0,
        measured: {
          size: size.map(round),
          min: e.min.map(round),
          ...(h === null ? {} : { header_extents: { min: h.min.map(round), max: h.max.map(round) } }),
        },
        expected: { size: p.expected, ...(p.min === undefined ? {} : { min: p.min }) },
        tolerance: { abs: p.abs_tol },
        reason: `${file}: geometry extents ${vec(size)} from ${vec(e.min)} vs expected ${vec(p.expected)}${p.min ? ` from ${vec(p.min)}` : ''} (±${p.abs_tol}): ${ok ? 'match' : `off by up to ${fmt(worst)}`}${claimed ? `; the header's $EXTMIN ${vec(h.min)} / $EXTMAX ${vec(h.max)} claim the expected extents, but what a file says about itself is not evidence: the extents were measured from the entities` : ''}`,
      };
    }
  }
}
