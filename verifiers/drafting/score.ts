/**
 * `drafting.score`: a delivered DXF scored the way AutoCAD-Bench scores drawings. Four parts, each a
 * fraction of the expected spec found in the drawing: geometry (60 %), dimensions (25 %),
 * annotations (10 %), presentation (5 %: layers, their colours and linetypes, and geometry on its
 * named layer). raw = weighted sum × 100; score = min(raw, 35 + 0.65 × 100 × geometry), so a drawing
 * with wrong geometry cannot be rescued by its dimensions and texts; completed at ≥ 75.
 */
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { fmt, pct } from '../judge-value.js';
import { readDxf } from './dxf-read.js';
import {
  DimensionItem,
  fraction,
  GeometryItem,
  LayerItem,
  matchDimensions,
  matchGeometry,
  matchLayers,
  matchTexts,
  TextItem,
  type ItemResult,
} from './spec.js';

/** Part weights (fractions of 100). */
const DRAFTING_WEIGHTS = {
  geometry: 0.6,
  dimensions: 0.25,
  annotations: 0.1,
  presentation: 0.05,
} as const;
/** Score at or above which a drawing counts as completed. */
const DRAFTING_PASS = 75;

/** The four part fractions, each in [0, 1]. */
export interface DraftingParts {
  geometry: number;
  dimensions: number;
  annotations: number;
  presentation: number;
}

/**
 * AutoCAD-Bench's formula: raw = 100 × Σ weight × part; score = min(raw, 35 + 0.65 × 100 × geometry).
 *
 * @example draftingScore({ geometry: 1, dimensions: 0, annotations: 1, presentation: 1 }) // { raw: 75, score: 75, completed: true }
 */
export function draftingScore(parts: DraftingParts): {
  raw: number;
  cap: number;
  score: number;
  completed: boolean;
} {
  const clamp = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
  const g = clamp(parts.geometry);
  const raw =
    100 *
    (DRAFTING_WEIGHTS.geometry * g +
      DRAFTING_WEIGHTS.dimensions * clamp(parts.dimensions) +
      DRAFTING_WEIGHTS.annotations * clamp(parts.annotations) +
      DRAFTING_WEIGHTS.presentation * clamp(parts.presentation));
  const cap = 35 + 0.65 * 100 * g;
  const score = Math.min(raw, cap);
  // Round away float noise so a perfect 75 is not 74.99999999.
  const r = (x: number): number => Math.round(x * 1e9) / 1e9;
  return { raw: r(raw), cap: r(cap), score: r(score), completed: r(score) >= DRAFTING_PASS };
}

/** Params of `drafting.score`: the expected drawing and tolerances. */
const DraftingScoreParams = z.object({
  spec: z.object({
    geometry: z.array(GeometryItem).min(1),
    dimensions: z.array(DimensionItem).default([]),
    /** Required texts (substring, any case, or `/regex/`). */
    annotations: z.array(TextItem).default([]),
    /** Layers with optional colour (ACI) and linetype. */
    layers: z.array(LayerItem).default([]),
  }),
  /** Position and size tolerance of geometry, in drawing units. */
  position_tol: z.number().nonnegative().default(0.01),
  /** Tolerance of dimension values. */
  dimension_tol: z.number().nonnegative().default(0.01),
  parse_timeout_sec: z.number().positive().default(20),
});
export type DraftingScoreParams = z.infer<typeof DraftingScoreParams>;

/** The `drafting.score` verifier. */
export const draftingScoreVerifier = defineVerifier({
  name: 'drafting.score',
  description:
    'AutoCAD-Bench drawing score of a DXF: geometry 60 %, dimensions 25 %, annotations 10 %, presentation 5 %; min(raw, 35 + 0.65·geometry); completed at ≥ 75',
  params: DraftingScoreParams,
  async judge({ params: p, file }) {
    // A corrupt file or a time-out becomes a failing verdict in defineVerifier, naming the file.
    const m = await readDxf(file.bytes, { limitMs: p.parse_timeout_sec * 1000 });
    const geo = matchGeometry(m, p.spec.geometry, p.position_tol);
    const dims = matchDimensions(m, p.spec.dimensions, p.dimension_tol);
    const notes = matchTexts(m, p.spec.annotations);
    const pres: ItemResult[] = [
      ...matchLayers(m, p.spec.layers),
      ...geo
        .filter((g) => g.layerOk !== undefined)
        .map((g) => ({ item: `${g.item} on its layer`, ok: g.layerOk === true })),
    ];
    const parts: DraftingParts = {
      geometry: fraction(geo),
      dimensions: fraction(dims),
      annotations: fraction(notes),
      presentation: fraction(pres),
    };
    const s = draftingScore(parts);
    const missed = [...geo, ...dims, ...notes, ...pres]
      .filter((r) => !r.ok)
      .map((r) => r.item + (r.note ? ` (${r.note})` : ''));
    return {
      passed: s.completed,
      score: s.score / 100,
      measured: {
        ...parts,
        raw: s.raw,
        cap: s.cap,
        score: s.score,
        completed: s.completed,
        missing: missed,
      },
      expected: { completed_at: DRAFTING_PASS, weights: DRAFTING_WEIGHTS },
      tolerance: { position: p.position_tol, dimension: p.dimension_tol },
      reason: `${file.rel}: geometry ${pct(parts.geometry)}, dimensions ${pct(parts.dimensions)}, annotations ${pct(parts.annotations)}, presentation ${pct(parts.presentation)} → raw ${fmt(s.raw)}, capped at ${fmt(s.cap)} → score ${fmt(s.score)} ${s.completed ? '≥' : '<'} ${DRAFTING_PASS}${missed.length === 0 ? '' : `; missing: ${missed.slice(0, 8).join('; ')}${missed.length > 8 ? ` (+${missed.length - 8} more)` : ''}`}`,
    };
  },
});
