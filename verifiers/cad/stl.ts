/**
 * `stl.geometry`: reopens a delivered STL with its own parser and `manifold-3d`, and checks one
 * property: `manifold`, `volume`, `bbox`, `genus` or `components`. A corrupt, truncated, empty or
 * non-manifold file is a failing verdict naming the problem.
 */
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import type { Verdict } from '../types.js';
import { analyzeStl, type StlAnalysis } from './analyze.js';

const vec3 = z.tuple([z.number().positive(), z.number().positive(), z.number().positive()]);
const common = {
  /** Time limit of the STL parse, in seconds. */
  parse_timeout_sec: z.number().positive().default(20),
};

/** Params of `stl.geometry`, by property. */
export const StlGeometryParams = z.discriminatedUnion('property', [
  z.object({ property: z.literal('manifold'), ...common }),
  z
    .object({
      property: z.literal('volume'),
      /** Expected volume in the file's units cubed. */
      expected: z.number().positive(),
      /** Relative tolerance, e.g. 0.005 for ±0.5 %. */
      rel_tol: z.number().nonnegative().optional(),
      /** Absolute tolerance in units cubed. */
      abs_tol: z.number().nonnegative().optional(),
      ...common,
    })
    .refine((p) => p.rel_tol !== undefined || p.abs_tol !== undefined, 'give rel_tol or abs_tol'),
  z.object({
    property: z.literal('bbox'),
    /** Expected bounding-box size [x, y, z]. */
    expected: vec3,
    /** Absolute tolerance per axis. */
    abs_tol: z.number().nonnegative().default(0.01),
    /** Compare sorted sizes, so any axis-aligned orientation passes. */
    any_orientation: z.boolean().default(false),
    ...common,
  }),
  z.object({ property: z.literal('genus'), expected: z.number().int(), ...common }),
  z.object({ property: z.literal('components'), expected: z.number().int().positive(), ...common }),
]);
export type StlGeometryParams = z.infer<typeof StlGeometryParams>;

/** The `stl.geometry` verifier. */
export const stlGeometry = defineVerifier({
  name: 'stl.geometry',
  description: 'Reopens an STL (binary or ASCII) with manifold-3d: manifold, volume, bbox, genus, components',
  params: StlGeometryParams,
  async judge({ params: p, file }) {
    // A parse failure or time-out becomes a failing verdict in defineVerifier, naming the file.
    const a = await analyzeStl(file.bytes, { limitMs: p.parse_timeout_sec * 1000 });
    return judge(file.rel, p, a);
  },
});

function judge(file: string, p: StlGeometryParams, a: StlAnalysis): Verdict {
  if (!a.manifold) {
    const why = `${file} is not a closed manifold mesh (manifold-3d: ${a.status}; ${a.triangles} triangles, ${a.vertices} welded vertices)`;
    return p.property === 'manifold'
      ? { passed: false, score: 0, measured: false, expected: true, reason: why }
      : { passed: false, score: 0, reason: `cannot measure ${p.property}: ${why}` };
  }
  const verdict = (passed: boolean, v: Omit<Verdict, 'passed' | 'score'>): Verdict => ({
    passed,
    score: passed ? 1 : 0,
    ...v,
  });
  switch (p.property) {
    case 'manifold':
      return verdict(true, {
        measured: true,
        expected: true,
        reason: `${file} is a closed manifold: ${a.triangles} triangles, ${a.vertices} vertices, ${a.components} component(s) (${a.format} STL, ${a.weld} weld)`,
      });
    case 'volume': {
      const err = Math.abs(a.volume - p.expected);
      const allowed = Math.max(p.abs_tol ?? 0, (p.rel_tol ?? 0) * p.expected);
      const ok = err <= allowed;
      const inverted = a.volume < 0 ? ' (negative: the facets are inside out)' : '';
      return verdict(ok, {
        measured: round(a.volume),
        expected: p.expected,
        tolerance: tol(p.rel_tol, p.abs_tol),
        reason: `volume ${fmt(a.volume)}${inverted} vs expected ${fmt(p.expected)}: off by ${fmt(err)} (${pct(err / p.expected)}), allowed ${fmt(allowed)} → ${ok ? 'within' : 'outside'} tolerance`,
      });
    }
    case 'bbox': {
      const got = p.any_orientation ? [...a.size].sort((x, y) => x - y) : a.size;
      const want = p.any_orientation ? [...p.expected].sort((x, y) => x - y) : p.expected;
      const off = got.map((g, i) => Math.abs(g - want[i]!));
      const ok = off.every((d) => d <= p.abs_tol);
      return verdict(ok, {
        measured: a.size.map(round),
        expected: p.expected,
        tolerance: { abs: p.abs_tol, any_orientation: p.any_orientation },
        reason: `bounding box ${vec(a.size)} vs expected ${vec(p.expected)} (±${p.abs_tol} per axis${p.any_orientation ? ', any orientation' : ''}): ${ok ? 'matches' : `largest deviation ${fmt(Math.max(...off))}`}`,
      });
    }
    case 'genus':
      return verdict(a.genus === p.expected, {
        measured: a.genus,
        expected: p.expected,
        tolerance: 0,
        reason: `genus ${a.genus} (through-holes/handles) vs expected ${p.expected}`,
      });
    case 'components':
      return verdict(a.components === p.expected, {
        measured: a.components,
        expected: p.expected,
        tolerance: 0,
        reason: `${a.components} connected component(s) vs expected ${p.expected}`,
      });
  }
}

function tol(rel: number | undefined, abs: number | undefined): Record<string, number> {
  return { ...(rel === undefined ? {} : { rel }), ...(abs === undefined ? {} : { abs }) };
}
const round = (x: number): number => Number(x.toPrecision(8));
const fmt = (x: number): string => String(Number(x.toPrecision(6)));
const pct = (x: number): string => `${Number((100 * x).toPrecision(3))} %`;
const vec = (v: readonly number[]): string => `[${v.map(fmt).join(', ')}]`;
