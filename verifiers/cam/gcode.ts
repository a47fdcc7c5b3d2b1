/**
 * `gcode.check`: reopens delivered G-code with its own interpreter (`parseGcode`) and checks one
 * property, chosen by `check`: `envelope`, `min_z`, `layer_height`, `rapids` (no G0 below the
 * stock top), `feeds`, `tool_changes`, `extruded_volume`, `header` (the slicer's own filament and
 * time comments against the moves) or `holes` (drilled positions). Working moves are FDM moves
 * that advance the filament (travels are G1 too) or CNC feed moves (G1/G2/G3 and drill plunges).
 */
import { z } from 'zod';
import { readDeliverable } from '../deliverable.js';
import { isArtifactInvalid, isVerifierTimeout } from '../errors.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { judgeCheck } from './gcode-checks.js';
import { parseGcode, type GcodeProgram } from './gcode-parse.js';
import { DEFAULT_CLOSENESS } from '../score.js';
import { ClosenessSchema, RangeSchema } from '../params.js';

const vec3 = z.tuple([z.number(), z.number(), z.number()]);
const vec2 = z.tuple([z.number(), z.number()]);
const range = RangeSchema;
const common = {
  /** `fdm` (extrusion) or `cnc` (cutting). Default: `fdm` when any move has an E word. */
  mode: z.enum(['fdm', 'cnc']).optional(),
  /** FDM: slicer features (`;TYPE:` comments, substring match) left out of the working moves. */
  exclude_types: z.array(z.string()).default(['skirt', 'brim']),
  /** FDM: ignore moves before the first layer marker (start G-code, purge lines). */
  layers_only: z.boolean().default(true),
  parse_timeout_sec: z.number().positive().default(20),
};
const closenessSchema = ClosenessSchema.default(DEFAULT_CLOSENESS);

/** Params of `gcode.check`, by check. */
export const GcodeCheckParams = z.discriminatedUnion('check', [
  z
    .object({
      check: z.literal('envelope'),
      /** The working moves' bounds must equal this box (± abs_tol). */
      expected: z.object({ min: vec3, max: vec3 }).optional(),
      /** The working moves must lie inside this box (± abs_tol). */
      within: z.object({ min: vec3, max: vec3 }).optional(),
      /** Size [x, y, z] of the bounds (± abs_tol), wherever they are. */
      size: vec3.optional(),
      /** Centre [x, y] of the bounds in XY (± abs_tol). */
      center: vec2.optional(),
      abs_tol: z.number().nonnegative().default(0.5),
      ...common,
    })
    .refine((p) => p.expected || p.within || p.size || p.center, 'give expected, within, size or center'),
  z
    .object({
      check: z.literal('min_z'),
      target: z.number().optional(),
      abs_tol: z.number().nonnegative().default(0.05),
      range: range.optional(),
      ...common,
    })
    .refine(
      (p) => (p.target === undefined) !== (p.range === undefined),
      'give exactly one of target and range',
    ),
  z.object({
    check: z.literal('layer_height'),
    /** Height of every layer but the first and the last. */
    expected: z.number().positive(),
    /** Height of the first layer, when it is checked. */
    first_layer: z.number().positive().optional(),
    abs_tol: z.number().nonnegative().default(0.01),
    ...common,
  }),
  z.object({
    check: z.literal('rapids'),
    /** Z of the stock top: no G0 may go below it (over the footprint, when given). */
    stock_top: z.number(),
    /** XY footprint of the stock; rapids below the top outside it are allowed. */
    footprint: z.object({ min: vec2, max: vec2 }).optional(),
    ...common,
  }),
  z.object({ check: z.literal('feeds'), range: range, ...common }),
  z
    .object({
      check: z.literal('tool_changes'),
      count: z.number().int().nonnegative().optional(),
      min: z.number().int().nonnegative().optional(),
      /** Tool numbers in the order they are loaded. */
      tools: z.array(z.number().int().nonnegative()).optional(),
      ...common,
    })
    .refine(
      (p) => p.count !== undefined || p.min !== undefined || p.tools !== undefined,
      'give count, min or tools',
    ),
  z
    .object({
      check: z.literal('extruded_volume'),
      filament_diameter: z.number().positive().default(1.75),
      /** Allowed volume in mm³ (e.g. a budget: { max }). */
      range: range.optional(),
      /** Target volume in mm³, scored by closeness. */
      target: z.number().positive().optional(),
      closeness: closenessSchema,
      /** Volume of the part in mm³, to report the extruded/part ratio. */
      part_volume: z.number().positive().optional(),
      ...common,
    })
    .refine(
      (p) => (p.target === undefined) !== (p.range === undefined),
      'give exactly one of target and range',
    ),
  z.object({
    check: z.literal('header'),
    /** Relative tolerance between the slicer's "filament used" and the filament the moves extrude. */
    rel_tol: z.number().positive().default(0.02),
    /** Upper bound on the slicer's estimated print time, in seconds. */
    max_time_sec: z.number().positive().optional(),
    ...common,
  }),
  z.object({
    check: z.literal('holes'),
    /** Expected hole centres [x, y]; every one must be drilled once and no other hole made. */
    positions: z.array(vec2).min(1),
    abs_tol: z.number().nonnegative().default(0.05),
    /** Expected bottom Z of every hole (± depth_tol). */
    depth: z.number().optional(),
    depth_tol: z.number().nonnegative().default(0.05),
    /** Z of the stock top: plunges that end below it count as holes (besides canned cycles). */
    stock_top: z.number().default(0),
    ...common,
  }),
]);
export type GcodeCheckParams = z.infer<typeof GcodeCheckParams>;

/** The `gcode.check` verifier. */
export const gcodeCheck: Verifier = {
  name: 'gcode.check',
  description:
    'Reopens G-code (FDM or CNC): envelope, min Z, layer height, rapids below stock, feeds, tool changes, extruded volume, slicer header, holes',
  params: GcodeCheckParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = GcodeCheckParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    let prog: GcodeProgram;
    try {
      prog = parseGcode(read.bytes.toString('latin1'), p.parse_timeout_sec * 1000);
    } catch (err) {
      if (isArtifactInvalid(err) || isVerifierTimeout(err))
        return { passed: false, score: 0, reason: `${read.rel}: ${err.message}` };
      throw err;
    }
    const v = judgeCheck(p, prog);
    return { ...v, reason: `${read.rel}: ${v.reason}` };
  },
};
