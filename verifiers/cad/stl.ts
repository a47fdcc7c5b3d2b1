/**
 * `stl.geometry`: reopens a delivered STL with its own parser and `manifold-3d`, and checks one
 * property: `manifold`, `volume`, `bbox`, `genus` or `components`. A corrupt, truncated, empty or
 * non-manifold file is a failing verdict naming the problem. Only the triangles are evidence: the
 * header (or ASCII solid name) is never read for a value, and a volume made up by overlapping or
 * inside-out shells is named as such.
 */
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { fmt, round, vec } from '../judge-value.js';
import type { Verdict } from '../types.js';
import { analyzeStl, type StlAnalysis } from './analyze.js';
import { claim, naming, wantedNumbers, type SelfClaim } from './claims.js';
import { judgeScalar, scalarGoalParams, scalarGoalProblem } from './scalar.js';

const vec3 = z.tuple([z.number().positive(), z.number().positive(), z.number().positive()]);
const common = {
  /** Time limit of the STL parse, in seconds. */
  parse_timeout_sec: z.number().positive().default(20),
};

/** Params of `stl.geometry`, by property. */
const StlGeometryParams = z.discriminatedUnion('property', [
  z.object({ property: z.literal('manifold'), ...common }),
  /** Volume in the file's units cubed: `expected` with `rel_tol`/`abs_tol`, or one value goal. */
  z.object({ property: z.literal('volume'), ...scalarGoalParams, ...common }).superRefine((p, ctx) => {
    const problem = scalarGoalProblem(p);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  }),
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
    const said = claim(
      a.format === 'binary' ? 'the binary STL header' : 'the ASCII STL solid name',
      a.header,
    );
    const claims: SelfClaim[] = said === null ? [] : [said];
    const wanted = wantedNumbers(
      'expected' in p ? p.expected : 'target' in p ? (p.target ?? p.range) : undefined,
    );
    return naming(judge(file.rel, p, a), claims, p.property, wanted, `the ${a.triangles} triangles`);
  },
});

function judge(file: string, p: StlGeometryParams, a: StlAnalysis): Verdict {
  if (!a.manifold) {
    const why = `${file} is not a closed manifold mesh (manifold-3d: ${a.status}; ${a.triangles} triangles, ${a.vertices} welded vertices)`;
    return p.property === 'manifold'
      ? { passed: false, score: 0, measured: false, expected: true, reason: why }
      : {
          passed: false,
          score: 0,
          measured: { manifold: false, status: a.status, triangles: a.triangles },
          reason: `cannot measure ${p.property}: ${why}`,
        };
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
      const { overlap, inverted } = a.solidity;
      const lost = inverted.reduce((x, y) => x + y, 0);
      const measured = { volume: round(a.volume), overlap: round(overlap), inverted: inverted.map(round) };
      if (overlap > 1e-6 * Math.abs(a.volume))
        return verdict(false, {
          measured,
          reason: `${file}: volume ${fmt(a.volume)} counts ${fmt(overlap)} twice: ${a.components} shells overlap instead of being fused into one solid`,
        });
      if (inverted.length > 0)
        return verdict(false, {
          measured,
          reason: `${file}: volume ${fmt(a.volume)} is short by ${fmt(lost)}: ${inverted.length} inside-out shell(s) enclose no material and subtract volume that is not there`,
        });
      const note = a.volume < 0 ? 'negative: the facets are inside out' : undefined;
      return judgeScalar('volume', a.volume, p, note);
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
