/**
 * What a scene must hold, as criterion params shared by `gltf.scene` and `blend.scene`. The check of
 * a `SceneDump` against it is in `scene-check.ts`.
 */
import { z } from 'zod';

const Vec3S = z.tuple([z.number(), z.number(), z.number()]);

/** An object (glTF node / Blender object) the scene must contain, found by exact name. */
export const ObjectSpec = z
  .object({
    name: z.string().min(1),
    /** `mesh`, `camera`, `light`, `empty` (or another Blender type in lower case). */
    type: z.string().optional(),
    /**
     * The frame of `location`, `rotation_*` and `scale`: `world` (default), or `local`, relative to
     * the parent (glTF: the node's own TRS; Blender: `matrix_local`). `look_at` is always world.
     */
    space: z.enum(['world', 'local']).default('world'),
    /** Position, in `space`. */
    location: Vec3S.optional(),
    /** Rotation as Euler angles in degrees, applied X then Y then Z (Blender's `XYZ`), in `space`. */
    rotation_euler_deg: Vec3S.optional(),
    /** Rotation as a quaternion `[x, y, z, w]`, in `space`. */
    rotation_quat: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional(),
    /** Scale, in `space`. */
    scale: Vec3S.optional(),
    /** Name of the parent object the object must have (`null`: at the root). */
    parent: z.string().nullable().optional(),
    /** A world point the object's local −Z axis (where cameras and lights point) must aim at. */
    look_at: Vec3S.optional(),
    /** Material names the object's mesh must use (any order; others may be there too). */
    materials: z.array(z.string()).optional(),
    camera: z
      .object({
        type: z.enum(['perspective', 'orthographic', 'panoramic']).optional(),
        /** Vertical field of view in degrees. */
        yfov_deg: z.number().positive().optional(),
        /** Focal length in mm (Blender only). */
        lens_mm: z.number().positive().optional(),
      })
      .optional(),
    light: z
      .object({
        type: z.enum(['point', 'sun', 'spot', 'area']).optional(),
        energy: z.number().nonnegative().optional(),
        color: Vec3S.optional(),
      })
      .optional(),
  })
  .refine((o) => !(o.rotation_euler_deg && o.rotation_quat), 'give rotation_euler_deg or rotation_quat');

/** A material the scene must contain, found by exact name. */
const MaterialSpec = z.object({
  name: z.string().min(1),
  /** Linear RGB or RGBA in [0, 1] (Principled BSDF Base Color, or the viewport colour). */
  base_color: z.array(z.number().min(0).max(1)).min(3).max(4).optional(),
  metallic: z.number().min(0).max(1).optional(),
  roughness: z.number().min(0).max(1).optional(),
});

/** Tolerances; every one has a default. */
const SceneTolerance = z
  .object({
    /** Scene units (metres in glTF). */
    position: z.number().nonnegative().default(0.01),
    /** Degrees, for rotations (as the angle between quaternions), look-at and field of view. */
    angle_deg: z.number().nonnegative().default(1),
    /** Largest per-axis scale difference. */
    scale: z.number().nonnegative().default(0.01),
    /** Largest per-channel colour difference. */
    color: z.number().nonnegative().default(0.02),
    /** Metallic, roughness. */
    factor: z.number().nonnegative().default(0.02),
    /** Relative, for light energy and lens. */
    relative: z.number().nonnegative().default(0.05),
  })
  .default({ position: 0.01, angle_deg: 1, scale: 0.01, color: 0.02, factor: 0.02, relative: 0.05 });

/** The scene spec part of a scene verifier's params. */
export const SceneSpecShape = {
  objects: z.array(ObjectSpec).default([]),
  materials: z.array(MaterialSpec).default([]),
  /** Exact numbers of objects by type (`mesh`, `camera`, `light`, …) and of materials. */
  counts: z.record(z.string(), z.number().int().nonnegative()).default({}),
  /** Name of the scene's active camera object (Blender only). */
  active_camera: z.string().optional(),
  /** Render settings (Blender only): engine (`CYCLES`, …) and resolution in pixels. */
  render: z
    .object({
      engine: z.string().optional(),
      resolution: z.tuple([z.number().int().positive(), z.number().int().positive()]).optional(),
    })
    .optional(),
  tolerance: SceneTolerance,
};
/** The scene spec as a schema of its own. */
export const SceneSpecSchema = z.object(SceneSpecShape);
export type SceneSpec = z.infer<typeof SceneSpecSchema>;
