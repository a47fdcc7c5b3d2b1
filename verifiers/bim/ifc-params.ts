/** Params of the `ifc.model` verifier, with their defaults. */
import { z } from 'zod';
import { taskFile } from '../params.js';

/** The three parts a model is scored on. */
export const IfcPart = z.enum(['geometric', 'semantic', 'topological']);
export type IfcPart = z.infer<typeof IfcPart>;

const vec3 = z.tuple([z.number(), z.number(), z.number()]);

/** A count requirement: exactly `equals`, or within `[min, max]`. */
export const IfcCount = z
  .object({
    equals: z.number().int().nonnegative().optional(),
    min: z.number().int().nonnegative().optional(),
    max: z.number().int().nonnegative().optional(),
  })
  .refine(
    (c) => c.equals !== undefined || c.min !== undefined || c.max !== undefined,
    'give equals, min or max',
  );
export type IfcCount = z.infer<typeof IfcCount>;

/** Which elements a check applies to. Strings match exactly; `type` ignores case (`IfcWall`). */
export const IfcSelect = z.object({
  type: z.string().regex(/^ifc[a-z0-9]+$/i, 'an IFC entity name such as IfcWall'),
  name: z.string().optional(),
  /** A regular expression the Name must match. */
  name_pattern: z.string().optional(),
  global_id: z.string().optional(),
  /** Only elements contained (directly or through aggregation) in the storey of this name. */
  storey: z.string().optional(),
});
export type IfcSelect = z.infer<typeof IfcSelect>;

/** Checks on the selected elements; each requirement is checked on every selected element. */
export const IfcElementCheck = z.object({
  select: IfcSelect,
  /** How many elements the selection must find. Default: at least one. */
  count: IfcCount.default({ min: 1 }),
  // semantic
  name: z.string().optional(),
  predefined_type: z.string().optional(),
  object_type: z.string().optional(),
  /** `Pset_WallCommon.FireRating: EI60`, `Qto_SlabBaseQuantities.Depth: 0.25`, … */
  properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  /** Relative tolerance of numeric property values. Default 1e-6. */
  property_tol: z.number().nonnegative().default(1e-6),
  // topological
  /** Name of the storey the element is contained in (directly or through its aggregate). */
  storey: z.string().optional(),
  /** Name of the element or spatial element this element is a part of (IfcRelAggregates). */
  aggregated_in: z.string().optional(),
  /** Name of the element whose opening this element fills (IfcRelVoidsElement + IfcRelFillsElement). */
  fills_opening_in: z.string().optional(),
  // geometric (metres, web-ifc's frame: Y up)
  bbox_size: vec3.optional(),
  bbox_min: vec3.optional(),
  bbox_max: vec3.optional(),
  volume: z.number().nonnegative().optional(),
  /**
   * The element's base quantities (Qto_*: Height, Depth, Length, Width, GrossVolume, NetVolume, a
   * slab's GrossArea/NetArea) must agree with its mesh: a quantity set is what the model says about
   * itself, the geometry is what it is. Lengths within `length_tol`, volumes and areas within
   * `volume_tol`. Length/Width assume an axis-aligned element.
   */
  quantities_match_geometry: z.boolean().default(false),
  /** Absolute tolerance of bbox values in metres. Default 0.01. */
  length_tol: z.number().nonnegative().default(0.01),
  /** Relative tolerance of volume. Default 0.02. */
  volume_tol: z.number().nonnegative().default(0.02),
});
export type IfcElementCheck = z.infer<typeof IfcElementCheck>;

/** Elements of a reference model that must keep their GlobalId, type, name and geometry. */
export const IfcUntouched = z.object({
  /** Reference IFC, relative to the task folder (a hidden copy, or the task's input file). */
  reference: taskFile(),
  /** Entity types to compare. Default: every product except spatial elements and openings. */
  types: z.array(z.string()).optional(),
  /** Names or GlobalIds allowed to change (e.g. the wall that receives an opening). */
  except: z.array(z.string()).default([]),
  /** Compare geometry too (bounding box and volume). Default true. */
  geometry: z.boolean().default(true),
  /** Largest bounding-box move, in metres. Default 0.001. */
  length_tol: z.number().nonnegative().default(0.001),
  /** Largest relative volume change. Default 0.001. */
  volume_tol: z.number().nonnegative().default(0.001),
});
export type IfcUntouched = z.infer<typeof IfcUntouched>;

/** Params of `ifc.model`. At least one of `counts`, `elements`, `untouched` is needed. */
export const IfcModelParams = z
  .object({
    /** Counts of entities by type (semantic), optionally within a storey. */
    counts: z
      .array(IfcCount.and(z.object({ type: IfcSelect.shape.type, storey: z.string().optional() })))
      .default([]),
    elements: z.array(IfcElementCheck).default([]),
    untouched: IfcUntouched.optional(),
    /** Weights of the parts in the score. Default 1 each. */
    weights: z
      .object({
        geometric: z.number().nonnegative().default(1),
        semantic: z.number().nonnegative().default(1),
        topological: z.number().nonnegative().default(1),
      })
      .default({ geometric: 1, semantic: 1, topological: 1 }),
    /** Parts that must pass entirely for the verdict to pass. Default: every part that has checks. */
    required: z.array(IfcPart).optional(),
    /**
     * Shape representations that no product uses: `fail` (default; an edit whose geometry is
     * attached to nothing is broken) or `report` (listed in `measured` only).
     */
    orphans: z.enum(['fail', 'report']).default('fail'),
    /** Larger files fail without being parsed. Default 64 MB. */
    max_mb: z.number().positive().default(64),
    /** Time limit of parsing and checking, in seconds. Default 30. */
    timeout_sec: z.number().positive().default(30),
  })
  .refine(
    (p) => p.counts.length + p.elements.length > 0 || p.untouched !== undefined,
    'give counts, elements or untouched',
  );
export type IfcModelParams = z.infer<typeof IfcModelParams>;
