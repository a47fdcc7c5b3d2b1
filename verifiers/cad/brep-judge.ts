/**
 * Judging one property of a measured B-rep (`BrepFacts`) against a criterion: validity, volume,
 * area, centre of mass, bounding box, topology counts, faces by surface type and holes. Shared by
 * `step.geometry` and `fcstd.document`.
 */
import { z } from 'zod';
import { fmt, round, vec } from '../judge-value.js';
import type { Verdict } from '../types.js';
import { naming, wantedNumbers, type SelfClaim } from './claims.js';
import { holesOf, matchHoles, type ExpectedHole } from './holes.js';
import type { BrepFacts, Vec3 } from './occt-facts.js';
import { judgeScalar, scalarGoalParams, scalarGoalProblem, type ScalarGoal } from './scalar.js';

const vec3 = z.tuple([z.number(), z.number(), z.number()]);
const axis = z.union([z.enum(['x', 'y', 'z']), vec3]);
type Count = 'solids' | 'shells' | 'faces' | 'edges' | 'vertices';
const SURFACES = [
  'plane',
  'cylinder',
  'cone',
  'sphere',
  'torus',
  'bezier',
  'bspline',
  'revolution',
  'extrusion',
  'offset',
  'other',
] as const;

/** A scalar property's params: `expected` with a tolerance, or one shared value goal. */
function scalar<const P extends string, E extends z.ZodRawShape>(property: P, extra: E) {
  return z.object({ property: z.literal(property), ...scalarGoalParams, ...extra }).superRefine((p, ctx) => {
    const problem = scalarGoalProblem(p as ScalarGoal);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/**
 * The variants of a B-rep property check, each with the fields of `extra` (a verifier's own params,
 * such as a format or a time limit), for a discriminated union on `property`.
 */
export function brepPropertyVariants<E extends z.ZodRawShape>(extra: E) {
  return [
    /** BRepCheck finds no fault, and (by default) the file holds at least one solid. */
    z.object({ property: z.literal('valid'), require_solid: z.boolean().default(true), ...extra }),
    /** Volume: `expected` with `rel_tol`/`abs_tol`, or `range`, `target`, `lower_is_better`, `higher_is_better`. */
    scalar('volume', extra),
    /** Surface area, judged like the volume. */
    scalar('area', extra),
    z.object({
      property: z.literal('center_of_mass'),
      expected: vec3,
      abs_tol: z.number().nonnegative().default(0.01),
      ...extra,
    }),
    z.object({
      property: z.literal('bbox'),
      /** Expected size [x, y, z]. */
      expected: z.tuple([z.number().nonnegative(), z.number().nonnegative(), z.number().nonnegative()]),
      /** Expected minimum corner, when the placement matters too. */
      min: vec3.optional(),
      abs_tol: z.number().nonnegative().default(0.01),
      /** Compare sorted sizes, so any axis-aligned orientation passes (not with `min`). */
      any_orientation: z.boolean().default(false),
      ...extra,
    }),
    z.object({
      property: z.literal('counts'),
      /** Exact counts of distinct sub-shapes; only those given are checked. */
      expected: z
        .object({
          solids: z.number().int().nonnegative().optional(),
          shells: z.number().int().nonnegative().optional(),
          faces: z.number().int().nonnegative().optional(),
          edges: z.number().int().nonnegative().optional(),
          vertices: z.number().int().nonnegative().optional(),
        })
        .refine((o) => Object.values(o).some((v) => v !== undefined), 'give at least one count'),
      ...extra,
    }),
    z.object({
      property: z.literal('face_types'),
      /** Faces per surface type; only the types given are checked. */
      expected: z.partialRecord(z.enum(SURFACES), z.number().int().nonnegative()),
      /** `exact`: counts must be equal; `at_least`: counts may be higher. */
      mode: z.enum(['exact', 'at_least']).default('exact'),
      ...extra,
    }),
    z.object({
      property: z.literal('holes'),
      /** Each hole: a point on its axis, the axis (`x`, `y`, `z` or a vector), the diameter. */
      expected: z.array(z.object({ at: vec3, axis, diameter: z.number().positive() })).min(1),
      /** Largest distance from `at` to the hole axis. */
      position_tol: z.number().nonnegative().default(0.05),
      diameter_tol: z.number().nonnegative().default(0.01),
      angle_tol_deg: z.number().nonnegative().default(0.5),
      /** Whether holes other than the expected ones may exist. */
      allow_extra: z.boolean().default(false),
      ...extra,
    }),
  ] as const;
}

/** The property checked and its expectation (one variant per property), with no other fields. */
export const BrepPropertyParams = z.discriminatedUnion('property', brepPropertyVariants({}));
export type BrepPropertyParams = z.infer<typeof BrepPropertyParams>;

const AXES: Record<'x' | 'y' | 'z', Vec3> = { x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1] };

/**
 * Judges one property of `facts`; `what` names the shape in reasons (a file or an object). When the
 * verdict fails and the file's self-claims (header, comments, stored properties) speak of the
 * property, the reason names them as what they are: not evidence.
 */
export function judgeBrep(
  what: string,
  p: BrepPropertyParams,
  f: BrepFacts,
  claims: readonly SelfClaim[] = [],
): Verdict {
  const v = judgeFacts(what, p, f);
  const wanted = wantedNumbers(
    'expected' in p ? p.expected : 'target' in p ? (p.target ?? p.range) : undefined,
  );
  return naming(v, claims, p.property, wanted, `the exact B-rep geometry (OCCT)`);
}

function judgeFacts(what: string, p: BrepPropertyParams, f: BrepFacts): Verdict {
  const verdict = (passed: boolean, v: Omit<Verdict, 'passed' | 'score'>): Verdict => ({
    passed,
    score: passed ? 1 : 0,
    ...v,
  });
  if (p.property !== 'valid' && p.property !== 'counts' && f.solids === 0 && needsSolid(p.property))
    return verdict(false, {
      measured: { solids: 0, shells: f.shells, faces: f.faces },
      reason: `cannot measure ${p.property}: ${what} holds no solid (${f.shells} shell(s), ${f.faces} face(s))`,
    });
  const size: Vec3 = [f.bboxMax[0] - f.bboxMin[0], f.bboxMax[1] - f.bboxMin[1], f.bboxMax[2] - f.bboxMin[2]];
  switch (p.property) {
    case 'valid': {
      const ok = f.valid && (!p.require_solid || f.solids > 0);
      const why = !f.valid
        ? 'OCCT BRepCheck reports faults'
        : f.solids === 0 && p.require_solid
          ? 'no solid in the file'
          : 'valid';
      return verdict(ok, {
        measured: { valid: f.valid, solids: f.solids },
        expected: { valid: true, ...(p.require_solid ? { solids: '≥ 1' } : {}) },
        reason: `${what}: ${why} (BRepCheck ${f.valid ? 'passes' : 'fails'}; ${f.solids} solid(s), ${f.faces} face(s), root ${f.rootType})`,
      });
    }
    case 'volume':
    case 'area': {
      const m = p.property === 'volume' ? f.volume : f.area;
      const inverted = p.property === 'volume' && m < 0 ? 'negative: the solid is inside out' : undefined;
      return judgeScalar(p.property, m, p, inverted);
    }
    case 'center_of_mass': {
      const off = Math.hypot(...f.centerOfMass.map((c, i) => c - p.expected[i]!));
      const ok = off <= p.abs_tol;
      return verdict(ok, {
        measured: f.centerOfMass.map(round),
        expected: p.expected,
        tolerance: { abs: p.abs_tol },
        reason: `centre of mass ${vec(f.centerOfMass)} vs expected ${vec(p.expected)}: ${fmt(off)} away, allowed ${p.abs_tol}`,
      });
    }
    case 'bbox': {
      const any = p.any_orientation && p.min === undefined;
      const got = any ? [...size].sort((a, b) => a - b) : size;
      const want = any ? [...p.expected].sort((a, b) => a - b) : p.expected;
      const off = got.map((g, i) => Math.abs(g - want[i]!));
      const minOff = p.min === undefined ? [] : f.bboxMin.map((m, i) => Math.abs(m - p.min![i]!));
      const worst = Math.max(...off, ...minOff);
      const ok = worst <= p.abs_tol;
      return verdict(ok, {
        measured: { size: size.map(round), min: f.bboxMin.map(round) },
        expected: { size: p.expected, ...(p.min === undefined ? {} : { min: p.min }) },
        tolerance: { abs: p.abs_tol, any_orientation: any },
        reason: `bounding box ${vec(size)} from ${vec(f.bboxMin)} vs expected ${vec(p.expected)}${p.min === undefined ? '' : ` from ${vec(p.min)}`} (±${p.abs_tol}${any ? ', any orientation' : ''}): ${ok ? 'matches' : `largest deviation ${fmt(worst)}`}`,
      });
    }
    case 'counts': {
      const want = Object.entries(p.expected).filter(([, v]) => v !== undefined) as [Count, number][];
      const measured = Object.fromEntries(want.map(([k]) => [k, f[k]]));
      const wrong = want.filter(([k, v]) => f[k] !== v);
      return verdict(wrong.length === 0, {
        measured,
        expected: Object.fromEntries(want),
        tolerance: 0,
        reason: `${what}: ${want.map(([k, v]) => `${f[k]} ${k} (expected ${v})`).join(', ')}${wrong.length === 0 ? '' : ` → ${wrong.map(([k]) => k).join(', ')} differ`}`,
      });
    }
    case 'face_types': {
      const want = Object.entries(p.expected) as [string, number][];
      const got = (k: string): number => f.faceTypes[k] ?? 0;
      const wrong = want.filter(([k, v]) => (p.mode === 'exact' ? got(k) !== v : got(k) < v));
      return verdict(wrong.length === 0, {
        measured: f.faceTypes,
        expected: p.expected,
        tolerance: p.mode,
        reason: `faces by surface type ${JSON.stringify(f.faceTypes)} vs ${p.mode === 'exact' ? 'exactly' : 'at least'} ${JSON.stringify(p.expected)}${wrong.length === 0 ? '' : ` → ${wrong.map(([k, v]) => `${got(k)} ${k} instead of ${v}`).join(', ')}`}`,
      });
    }
    case 'holes': {
      const found = holesOf(f.cylinders);
      const expected: ExpectedHole[] = p.expected.map((e) => ({
        at: e.at,
        axis: typeof e.axis === 'string' ? AXES[e.axis] : e.axis,
        diameter: e.diameter,
      }));
      const tol = { position: p.position_tol, diameter: p.diameter_tol, angleDeg: p.angle_tol_deg };
      const m = matchHoles(found, expected, tol);
      const ok = m.missing.length === 0 && (p.allow_extra || m.extra.length === 0);
      const describe = (h: { diameter: number; axisPoint: Vec3; axis: Vec3 }): string =>
        `⌀${fmt(h.diameter)} through ${vec(h.axisPoint)} along ${vec(h.axis)}`;
      const problems = [
        ...m.missing.map((e) => `no ⌀${fmt(e.diameter)} hole with its axis through ${vec(e.at)}`),
        ...(p.allow_extra ? [] : m.extra.map((h) => `unexpected hole ${describe(h)}`)),
      ];
      return verdict(ok, {
        measured: found.map((h) => ({
          diameter: round(h.diameter),
          axis_point: h.axisPoint.map(round),
          axis: h.axis.map(round),
        })),
        expected: p.expected,
        tolerance: { ...tol, allow_extra: p.allow_extra },
        reason: `${found.length} hole(s) found, ${m.matched.length} of ${expected.length} expected matched (±${p.position_tol} position, ±${p.diameter_tol} diameter)${ok ? '' : `: ${problems.join('; ')}`}`,
      });
    }
  }
}

function needsSolid(property: BrepPropertyParams['property']): boolean {
  return property === 'volume' || property === 'center_of_mass';
}
