/** Params of `calculix.result`, one branch per quantity (a key another quantity uses is refused). */
import { z } from 'zod';
import { goalsGiven, ONE_GOAL, valueGoalParams } from '../judge-value.js';
import { MATCH_TOL } from './result-compare.js';

/** Tool image with calculix-ccx. */
const CCX_IMAGE = 'engiloop/cli:latest';

const vec3 = z.tuple([z.number(), z.number(), z.number()]);
const box = z.object({ min: vec3, max: vec3 });

const common = {
  /**
   * The delivered deck whose solve the result file must be (path in the workspace). Default: the
   * result file's sibling `.inp` (`beam.frd` → `beam.inp`). Unused when the deliverable is the deck.
   */
  deck: z
    .string()
    .min(1)
    .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), {
      message: 'must be a relative path inside the workspace (no leading "/", no "..")',
    })
    .optional(),
  /**
   * Read a delivered result file as it is, without re-solving its deck. Only for tasks that cannot
   * deliver or re-solve a deck: what a result file says about itself is then the only evidence.
   */
  trust_results: z.boolean().default(false),
  /** Delivered and re-solved values agree within this share of the field's largest value. */
  match_tol: z.number().positive().max(0.1).default(MATCH_TOL),
  image: z.string().default(CCX_IMAGE),
  /** Time limit of a re-solve, in seconds. */
  timeout_sec: z.number().positive().default(50),
  /** Time limit of a parse, in seconds. */
  parse_timeout_sec: z.number().positive().default(20),
};
const at = {
  /** Read at the node nearest this point (`.frd`). */
  at: vec3.optional(),
};
const region = {
  /** Read over the nodes inside this box (`.frd`). */
  region: box.optional(),
  /** Read the `.dat` table of this node/element set (upper or lower case). */
  set: z.string().min(1).optional(),
};
/** Result block counter (increment or mode) to read; default the last block. */
const step = { step: z.number().int().positive().optional() };
/** Vector component read (`magnitude` by default). */
const component = { component: z.enum(['x', 'y', 'z', 'magnitude']).default('magnitude') };
const oneGoal = (p: Parameters<typeof goalsGiven>[0]): boolean => goalsGiven(p) === 1;

/** Params of `calculix.result`. */
export const CalculixResultParams = z.discriminatedUnion('quantity', [
  z.object({
    quantity: z.literal('converged'),
    /** The step time each step must reach. */
    step_time: z.number().positive().default(1),
    /** How many steps there must be. */
    min_steps: z.number().int().positive().default(1),
    ...common,
  }),
  z
    .object({
      quantity: z.literal('max_displacement'),
      ...region,
      ...component,
      ...step,
      ...valueGoalParams,
      ...common,
    })
    .refine(oneGoal, ONE_GOAL),
  z
    .object({
      quantity: z.literal('displacement'),
      ...at,
      ...region,
      ...component,
      /** Reduction over several nodes. Default `mean`. */
      statistic: z.enum(['mean', 'max', 'min', 'max_abs']).default('mean'),
      ...step,
      ...valueGoalParams,
      ...common,
    })
    .refine(oneGoal, ONE_GOAL)
    .refine(
      (p) => p.at !== undefined || p.region !== undefined || p.set !== undefined,
      'displacement needs at, region or set',
    ),
  z
    .object({
      quantity: z.literal('max_von_mises'),
      ...at,
      ...region,
      ...step,
      ...valueGoalParams,
      ...common,
    })
    .refine(oneGoal, ONE_GOAL),
  z
    .object({
      quantity: z.literal('reaction'),
      ...at,
      ...region,
      ...component,
      ...step,
      ...valueGoalParams,
      ...common,
    })
    .refine(oneGoal, ONE_GOAL),
  z.object({
    quantity: z.literal('equilibrium'),
    ...at,
    ...region,
    ...step,
    /** Applied load [Fx, Fy, Fz]. */
    applied: vec3,
    /** Relative tolerance on |ΣRF + F| / |F|. Default 0.5 %. */
    rel_tol: z.number().positive().default(0.005),
    ...common,
  }),
  z
    .object({
      quantity: z.literal('frequency'),
      /** Mode number (1 = lowest). */
      mode: z.number().int().positive().default(1),
      ...valueGoalParams,
      ...common,
    })
    .refine(oneGoal, ONE_GOAL),
]);
export type CalculixResultParams = z.infer<typeof CalculixResultParams>;
