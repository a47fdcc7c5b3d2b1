/** Params of `gcode.check`, one object per `check`. */
import { z } from 'zod';
import { goalsGiven, ONE_GOAL, valueGoalParams } from '../judge-value.js';
import { RangeSchema } from '../params.js';
import { commandPattern } from './gcode-end.js';
import { PRUSA_DEFAULT_MACHINE } from './gcode-time.js';

const vec3 = z.tuple([z.number(), z.number(), z.number()]);
const vec2 = z.tuple([z.number(), z.number()]);
const vec4 = z.tuple([
  z.number().positive(),
  z.number().positive(),
  z.number().positive(),
  z.number().positive(),
]);
const box = z.object({ min: vec3, max: vec3 });

const common = {
  /** `fdm` (extrusion) or `cnc` (cutting). Default: `fdm` when any move has an E word. */
  mode: z.enum(['fdm', 'cnc']).optional(),
  /** Time limit of the G-code parse, in seconds. */
  parse_timeout_sec: z.number().positive().default(20),
};

/** Which moves a check looks at. */
const moves = {
  ...common,
  /**
   * FDM: slicer features (`;TYPE:` comments, substring match) left out of the working moves. A
   * label is believed only on the lowest 3 extruding layers, where skirt and brim are printed.
   */
  exclude_types: z.array(z.string()).default(['skirt', 'brim']),
  /**
   * FDM: leave out the moves before the first layer marker (start G-code, purge lines). Believed
   * only while those moves extrude at most 10 % of the filament.
   */
  layers_only: z.boolean().default(true),
  /**
   * Only the moves made with this tool: the one loaded by `M6` (CNC) or the extruder selected by
   * `Tn` (FDM; T0 until one is). `1` or `T1`.
   */
  tool: z.union([z.number().int().nonnegative(), z.string().regex(/^[Tt]\d+$/, 'a tool like T1')]).optional(),
};

/** Kinematic limits for the print-time estimate; default PrusaSlicer 2.5's (normal mode). */
const MachineSchema = z.object({
  /** Acceleration of extruding moves, mm/s². */
  acceleration: z.number().positive().default(PRUSA_DEFAULT_MACHINE.acceleration),
  /** Acceleration of travel moves, mm/s². */
  travel_acceleration: z.number().positive().default(PRUSA_DEFAULT_MACHINE.travel_acceleration),
  /** Acceleration of retractions, mm/s². */
  retract_acceleration: z.number().positive().default(PRUSA_DEFAULT_MACHINE.retract_acceleration),
  /** Maximum feed per axis [X, Y, Z, E], mm/s. */
  max_feedrate: vec4.default(PRUSA_DEFAULT_MACHINE.max_feedrate),
  /** Maximum acceleration per axis [X, Y, Z, E], mm/s². */
  max_acceleration: vec4.default(PRUSA_DEFAULT_MACHINE.max_acceleration),
  /** Jerk per axis [X, Y, Z, E], mm/s. */
  max_jerk: vec4.default(PRUSA_DEFAULT_MACHINE.max_jerk),
});
const machine = {
  /** The printer's limits for the print-time estimate (the file may lower them, never raise them). */
  machine: MachineSchema.default(MachineSchema.parse({})),
};
const one = <T extends object>(p: T): boolean => goalsGiven(p) === 1;

/** Params of `gcode.check`, by check. */
export const GcodeCheckParams = z.discriminatedUnion('check', [
  z
    .object({
      check: z.literal('envelope'),
      /** The working moves' bounds must equal this box (± abs_tol per axis). */
      expected: box.optional(),
      /** The working moves must lie inside this box (± abs_tol per axis). */
      within: box.optional(),
      /** Size [x, y, z] of the bounds (± abs_tol per axis), wherever they are. */
      size: vec3.optional(),
      /** Centre [x, y] of the bounds in XY (± abs_tol of X and Y). */
      center: vec2.optional(),
      /** Tolerance in mm: one for every axis, or [x, y, z]. */
      abs_tol: z
        .union([
          z.number().nonnegative(),
          z.tuple([z.number().nonnegative(), z.number().nonnegative(), z.number().nonnegative()]),
        ])
        .default(0.5),
      ...moves,
    })
    .refine((p) => p.expected || p.within || p.size || p.center, 'give expected, within, size or center'),
  z
    .object({
      check: z.literal('min_z'),
      /** Expected lowest Z, a gate with `abs_tol`. */
      expected: z.number().optional(),
      /** Allowed distance from `expected`, in mm. */
      abs_tol: z.number().nonnegative().optional(),
      range: valueGoalParams.range,
      target: valueGoalParams.target,
      closeness: valueGoalParams.closeness,
      lower_is_better: valueGoalParams.lower_is_better,
      higher_is_better: valueGoalParams.higher_is_better,
      unit: z.string().default('mm'),
      ...moves,
    })
    .refine((p) => (p.expected === undefined) === (p.abs_tol === undefined), 'give expected with abs_tol')
    .refine(
      (p) => (p.expected === undefined ? one(p) : goalsGiven(p) === 0),
      'give expected with abs_tol, or exactly one of range, target, lower_is_better and higher_is_better',
    ),
  z.object({
    check: z.literal('layer_height'),
    /** Height of every layer but the first and the last. */
    expected: z.number().positive(),
    /** Height of the first layer, when it is checked. */
    first_layer: z.number().positive().optional(),
    abs_tol: z.number().nonnegative().default(0.01),
    ...moves,
  }),
  z.object({
    check: z.literal('rapids'),
    /** Z of the stock top: no G0 may go below it (over the footprint, when given). */
    stock_top: z.number(),
    /** XY footprint of the stock; rapids below the top outside it are allowed. */
    footprint: z.object({ min: vec2, max: vec2 }).optional(),
    ...moves,
  }),
  z.object({
    check: z.literal('feeds'),
    /** Every working move's feed must lie in this range, mm/min. */
    range: RangeSchema,
    ...moves,
  }),
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
      ...valueGoalParams,
      unit: z.string().default('mm³'),
      /** Volume of the part in mm³, to report the extruded/part ratio. */
      part_volume: z.number().positive().optional(),
      // every move counts: purge lines, skirt and retractions use (or give back) filament too
      ...common,
      tool: moves.tool,
    })
    .refine(one, ONE_GOAL),
  z
    .object({
      check: z.literal('print_time'),
      ...valueGoalParams,
      unit: z.string().default('s'),
      ...machine,
      ...common,
    })
    .refine(one, ONE_GOAL),
  z.object({
    check: z.literal('header'),
    /** Relative tolerance between a filament claim (mm, cm³, g) and the moves. */
    rel_tol: z.number().positive().default(0.02),
    /** Relative tolerance between the claimed print time and the time recomputed from the moves. */
    time_rel_tol: z.number().positive().default(0.1),
    /** Absolute slack of the time comparison, s (a slicer's extras weigh on very short prints). */
    time_abs_tol: z.number().nonnegative().default(30),
    /** Tolerance in mm between claimed print bounds (Cura `;MINX:` …) and the extruding moves'. */
    bounds_tol: z.number().nonnegative().default(1),
    /** Filament density in g/cm³, to check a weight claim; without it a weight claim is reported only. */
    filament_density: z.number().positive().optional(),
    filament_diameter: z.number().positive().default(1.75),
    /** Claims the header must make: a file without them fails. */
    require: z.array(z.enum(['filament', 'time', 'layer_count'])).default(['filament']),
    ...machine,
    ...common,
  }),
  z.object({
    check: z.literal('complete'),
    /**
     * Commands that must follow the last working move, each `M104 S0` or alternatives
     * `M84|M18`; a command matches when it has the code and every word given. Default FDM:
     * `M104 S0|M109 S0` (hotend off), `M140 S0|M190 S0` when the file heats the bed, and
     * `M84|M18` (motors off); CNC: `M2|M30` (program end).
     */
    end_sequence: z
      .array(
        z.string().refine((s) => commandPattern(s) !== null, 'a command like M104 S0; alternatives with |'),
      )
      .optional(),
    /** The file must end with a line break (a last line cut mid-way means a truncated file). */
    final_newline: z.boolean().default(true),
    /** FDM: the part's top, mm; extrusion must reach it (± top_tol). */
    top_z: z.number().optional(),
    top_tol: z.number().nonnegative().default(0.05),
    /**
     * FDM: the largest Z step allowed between consecutive extruding layers, mm. Default 2.5 × the
     * typical layer height.
     */
    max_layer_gap: z.number().positive().optional(),
    ...moves,
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
    ...moves,
  }),
]);
export type GcodeCheckParams = z.infer<typeof GcodeCheckParams>;
/** The params of one check. */
export type CheckParams<C extends GcodeCheckParams['check']> = Extract<GcodeCheckParams, { check: C }>;
