/**
 * `dxf.drawing`: reopens a delivered DXF with `dxf-parser` and checks one aspect: `layers` (present,
 * colour, linetype), `entities` (counts by type and/or layer), `geometry` (circles, arcs, lines,
 * polylines at positions within a tolerance), `dimensions` (values measured from the definition
 * points), `texts` (TEXT/MTEXT content) or `extents` (size of the geometry).
 */
import { z } from 'zod';
import { fmt, vec } from '../cad/numbers.js';
import { readDeliverable } from '../deliverable.js';
import { isArtifactInvalid, isVerifierTimeout } from '../errors.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { readDxf, type DxfModel } from './dxf-read.js';
import {
  DimensionItem,
  GeometryItem,
  LayerItem,
  matchDimensions,
  matchGeometry,
  matchLayers,
  matchTexts,
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
export const DxfDrawingParams = z.discriminatedUnion('check', [
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
export const dxfDrawing: Verifier = {
  name: 'dxf.drawing',
  description:
    'Reopens a DXF with dxf-parser: layers, entity counts, geometry positions, dimension values, texts, extents',
  params: DxfDrawingParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = DxfDrawingParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    let m: DxfModel;
    try {
      m = await readDxf(read.bytes, { limitMs: p.parse_timeout_sec * 1000 });
    } catch (err) {
      if (isArtifactInvalid(err) || isVerifierTimeout(err))
        return { passed: false, score: 0, reason: `${read.rel}: ${err.message}` };
      throw err;
    }
    return judge(read.rel, p, m);
  },
};

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
        m.dimensions.map((x) => ({ kind: x.kind, value: Number(x.value.toPrecision(8)), layer: x.layer })),
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
          expected: p.expected,
          reason: `${file} has no geometry to measure`,
        };
      const size = [m.extents.max[0] - m.extents.min[0], m.extents.max[1] - m.extents.min[1]];
      const off = [
        ...size.map((s, i) => Math.abs(s - p.expected[i]!)),
        ...(p.min ?? []).map((x, i) => Math.abs(m.extents!.min[i]! - x)),
      ];
      const worst = Math.max(...off);
      const ok = worst <= p.abs_tol;
      return {
        passed: ok,
        score: ok ? 1 : 0,
        measured: { size, min: m.extents.min },
        expected: { size: p.expected, ...(p.min === undefined ? {} : { min: p.min }) },
        tolerance: { abs: p.abs_tol },
        reason: `${file}: geometry extents ${vec(size)} from ${vec(m.extents.min)} vs expected ${vec(p.expected)}${p.min ? ` from ${vec(p.min)}` : ''} (±${p.abs_tol}): ${ok ? 'match' : `off by up to ${fmt(worst)}`}`,
      };
    }
  }
}
