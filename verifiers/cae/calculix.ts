/**
 * `calculix.result`: reopens delivered CalculiX results (`.frd`, `.dat`, `.sta`) with its own
 * parsers and checks one quantity: `converged`, `max_displacement`, `displacement` (at the node
 * nearest a point, over a box or a `.dat` set), `max_von_mises` (from the six stress components),
 * `reaction`, `equilibrium` (|ΣRF + F| ≤ rel_tol·|F| with the applied load F from params) or
 * `frequency`. With `resolve: true` the deliverable is the `.inp`: it is solved again by `ccx` in a
 * fresh tool container and the new results are read, so a hand-edited result file cannot pass.
 */
import path from 'node:path';
import { z } from 'zod';
import { readDeliverable } from '../deliverable.js';
import { ArtifactInvalidError, isArtifactInvalid, isVerifierTimeout } from '../errors.js';
import { closeness, DEFAULT_CLOSENESS, relativeError } from '../score.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { loadSource, resolveInp, type Sources } from './calculix-source.js';
import { convergence, displacement, frequency, maxVonMises, reactionSum, type Measured } from './measure.js';
import { ClosenessSchema, RangeSchema } from '../params.js';

/** Tool image with calculix-ccx. */
export const CCX_IMAGE = 'engiloop/cli:latest';

const vec3 = z.tuple([z.number(), z.number(), z.number()]);
const where = {
  /** Read at the node nearest this point (`.frd`). */
  at: vec3.optional(),
  /** Read over the nodes inside this box (`.frd`). */
  region: z.object({ min: vec3, max: vec3 }).optional(),
  /** Read the `.dat` table of this node/element set (upper or lower case). */
  set: z.string().min(1).optional(),
};

/** Params of `calculix.result`. */
export const CalculixResultParams = z
  .object({
    quantity: z.enum([
      'converged',
      'max_displacement',
      'displacement',
      'max_von_mises',
      'reaction',
      'equilibrium',
      'frequency',
    ]),
    ...where,
    /** Vector component read (`magnitude` by default). */
    component: z.enum(['x', 'y', 'z', 'magnitude']).default('magnitude'),
    /** Reduction over several nodes for `displacement`. Default `mean`. */
    statistic: z.enum(['mean', 'max', 'min', 'max_abs']).default('mean'),
    /** Result block counter (increment or mode) to read; default the last block. */
    step: z.number().int().positive().optional(),
    /** Mode number for `frequency` (1 = lowest). */
    mode: z.number().int().positive().default(1),
    /** Applied load [Fx, Fy, Fz] for `equilibrium`. */
    applied: vec3.optional(),
    /** Relative tolerance of `equilibrium` on |ΣRF + F| / |F|. Default 0.5 %. */
    rel_tol: z.number().positive().default(0.005),
    /** `converged`: the step time each step must reach, and how many steps there must be. */
    step_time: z.number().positive().default(1),
    min_steps: z.number().int().positive().default(1),
    /** Inclusive range the value must fall in (a gate). */
    range: RangeSchema.optional(),
    /** Target value, scored by closeness of the relative error. */
    target: z.number().optional(),
    closeness: ClosenessSchema.default(DEFAULT_CLOSENESS),
    /** Unit for readable reasons (`mm`, `MPa`, `N`, `Hz`). */
    unit: z.string().default(''),
    /** Re-solve the delivered `.inp` with ccx and read the fresh results. */
    resolve: z.boolean().default(false),
    image: z.string().default(CCX_IMAGE),
    /** Time limit of a re-solve, in seconds. */
    timeout_sec: z.number().positive().default(50),
    /** Time limit of a parse, in seconds. */
    parse_timeout_sec: z.number().positive().default(20),
  })
  .superRefine((p, ctx) => {
    const valued = !['converged', 'equilibrium'].includes(p.quantity);
    if (valued && (p.range === undefined) === (p.target === undefined))
      ctx.addIssue({ code: 'custom', message: `${p.quantity} needs exactly one of range and target` });
    if (p.quantity === 'equilibrium' && p.applied === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['applied'],
        message: 'equilibrium needs the applied load [Fx, Fy, Fz]',
      });
    if (p.quantity === 'displacement' && p.at === undefined && p.region === undefined && p.set === undefined)
      ctx.addIssue({ code: 'custom', message: 'displacement needs at, region or set' });
  });
export type CalculixResultParams = z.infer<typeof CalculixResultParams>;

/** The `calculix.result` verifier. */
export const calculixResult: Verifier = {
  name: 'calculix.result',
  description:
    'Reopens CalculiX .frd/.dat/.sta (or re-solves the .inp with ccx): convergence, displacement, von Mises, reactions, equilibrium, frequency',
  params: CalculixResultParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = CalculixResultParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    const expected =
      p.target ?? p.range ?? (p.quantity === 'converged' ? 'converged' : { applied: p.applied });
    const fail = (reason: string): Verdict => ({
      passed: false,
      score: 0,
      expected,
      reason: `${read.rel}: ${reason}`,
    });
    try {
      const ext = path.extname(read.rel).toLowerCase();
      let src: Sources;
      if (p.resolve) {
        if (ext !== '.inp') return fail('resolve needs the .inp input deck as the deliverable');
        const r = await resolveInp(ctx, read.path, p);
        if ('failure' in r) return fail(r.failure);
        src = r.sources;
      } else if (ext === '.inp')
        return fail('an .inp holds no results: deliver .frd/.dat/.sta, or set resolve: true');
      else src = loadSource(ext, read.bytes, p.parse_timeout_sec * 1000);
      return measureAndJudge(p, src, expected, read.rel + (p.resolve ? ' (re-solved with ccx)' : ''));
    } catch (err) {
      if (isArtifactInvalid(err) || isVerifierTimeout(err)) return fail(err.message);
      throw err;
    }
  },
};

function measureAndJudge(p: CalculixResultParams, src: Sources, expected: unknown, file: string): Verdict {
  const w = { at: p.at, region: p.region, set: p.set };
  // prefer the .dat for set-based reads, the .frd for geometric ones
  const field = (): NonNullable<Sources['frd']> | NonNullable<Sources['dat']> =>
    p.set !== undefined ? (src.dat ?? missing('.dat', src)) : (src.frd ?? src.dat ?? missing('.frd', src));
  switch (p.quantity) {
    case 'converged': {
      if (src.sta !== undefined) {
        const c = convergence(src.sta, p.step_time, p.min_steps);
        return binary(c.ok, c.steps, expected, 'step time reached', `${file}: ${c.text}`);
      }
      const f = src.frd ?? src.dat;
      const n =
        f === undefined ? 0 : 'blocks' in f ? f.blocks.length : f.tables.length + f.frequencies.length;
      return binary(
        n > 0,
        n,
        expected,
        'at least one result',
        `${file}: ${n} complete result block(s)/table(s) written`,
      );
    }
    case 'max_displacement':
      return valued(
        p,
        displacement(field(), { region: p.region, set: p.set }, p.component, 'max_abs', p.step),
        file,
        true,
      );
    case 'displacement':
      return valued(p, displacement(field(), w, p.component, p.statistic, p.step), file);
    case 'max_von_mises':
      return valued(p, maxVonMises(field(), w, p.step), file);
    case 'reaction': {
      const r = reactionSum(field(), w, p.step);
      const v =
        p.component === 'magnitude' ? Math.hypot(...r.sum) : r.sum[{ x: 0, y: 1, z: 2 }[p.component]]!;
      return valued(p, { value: v, source: `${r.source} = ${vec(r.sum)}` }, file);
    }
    case 'equilibrium': {
      const r = reactionSum(field(), w, p.step);
      const F = p.applied!;
      const resid = r.sum.map((s, i) => s + F[i]!);
      const rel = Math.hypot(...resid) / Math.max(Math.hypot(...F), 1e-30);
      const ok = rel <= p.rel_tol;
      return {
        passed: ok,
        score: ok ? 1 : 0,
        measured: { reaction: r.sum.map(round), residual: round(rel) },
        expected,
        tolerance: { rel: p.rel_tol },
        reason: `${file}: ΣRF ${vec(r.sum)} (${r.source}) + applied ${vec(F)} = ${vec(resid)}, ${pct(rel)} of |F| (allowed ${pct(p.rel_tol)}) → ${ok ? 'in equilibrium' : 'NOT in equilibrium'}`,
      };
    }
    case 'frequency':
      return valued(p, frequency(src.dat ?? src.frd ?? missing('.dat', src), p.mode), file);
  }
}

function missing(what: string, src: Sources): never {
  throw new ArtifactInvalidError(
    `no ${what} result to read (have: ${Object.keys(src).join(', ') || 'nothing'})`,
  );
}

function binary(
  ok: boolean,
  measured: unknown,
  expected: unknown,
  tolerance: string,
  reason: string,
): Verdict {
  return {
    passed: ok,
    score: ok ? 1 : 0,
    measured,
    expected,
    tolerance,
    reason: `${reason} → ${ok ? 'passed' : 'failed'}`,
  };
}

function valued(p: CalculixResultParams, m: Measured, file: string, absolute = false): Verdict {
  const u = p.unit === '' ? '' : ` ${p.unit}`;
  const v = absolute ? Math.abs(m.value) : m.value;
  const name = `${p.quantity}${p.component !== 'magnitude' && p.quantity.includes('displacement') ? ` (${p.component})` : ''}`;
  if (p.range !== undefined) {
    const { min, max } = p.range;
    const ok = (min === undefined || v >= min) && (max === undefined || v <= max);
    const want = min === undefined ? `≤ ${max}` : max === undefined ? `≥ ${min}` : `in [${min}, ${max}]`;
    return {
      passed: ok,
      score: ok ? 1 : 0,
      measured: round(v),
      expected: p.range,
      tolerance: 'inclusive range',
      reason: `${file}: ${name} = ${fmt(v)}${u} (${m.source}), required ${want}${u} → ${ok ? 'inside' : 'outside'} the range`,
    };
  }
  const target = p.target!;
  const err = relativeError(v, target);
  const score = closeness(err, p.closeness);
  return {
    passed: score > 0,
    score,
    measured: round(v),
    expected: target,
    tolerance: { rel_full: p.closeness.full, rel_zero: p.closeness.zero },
    reason: `${file}: ${name} = ${fmt(v)}${u} (${m.source}) vs target ${fmt(target)}${u}: ${pct(err)} off → score ${Number(score.toFixed(3))} (1 at ≤ ${pct(p.closeness.full)}, 0 at ≥ ${pct(p.closeness.zero)})`,
  };
}

const round = (x: number): number => Number(x.toPrecision(8));
const fmt = (x: number): string => String(Number(x.toPrecision(6)));
const pct = (x: number): string => `${Number((100 * x).toPrecision(3))} %`;
const vec = (v: readonly number[]): string => `[${v.map(fmt).join(', ')}]`;
