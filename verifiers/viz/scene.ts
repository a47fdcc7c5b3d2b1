/**
 * The scene model both scene verifiers check: what `gltf.scene` reads from a glTF/GLB and what
 * `blend.scene` dumps from a `.blend`, in one shape. Transforms are in the file's own frame (glTF:
 * Y up, metres; Blender: Z up, Blender units), world and local (relative to the parent); rotations
 * are unit quaternions. What a file says about itself (glTF `extras`, `asset.generator`, Blender
 * custom properties) is kept only to be named in reasons: it is never evidence.
 */

/** `[x, y, z]`. */
export type Vec3 = [number, number, number];
/** Unit quaternion `[x, y, z, w]` (glTF order). */
export type Quat = [number, number, number, number];

/** A camera as both formats can state it. */
export interface SceneCamera {
  type: 'perspective' | 'orthographic' | 'panoramic';
  /** Vertical field of view in radians (perspective only). */
  yfov?: number;
  /** Focal length in mm (Blender only). */
  lensMm?: number;
}

/** A light (Blender only: the glTF reader does not load KHR_lights_punctual). */
export interface SceneLight {
  type: 'point' | 'sun' | 'spot' | 'area';
  /** Watts for point/spot/area, W/m² (irradiance) for sun. */
  energy: number;
  color: Vec3;
}

/** A transform split into translation, rotation and scale. */
export interface Trs {
  translation: Vec3;
  rotation: Quat;
  scale: Vec3;
}

/** One object (a glTF node or a Blender object). */
export interface SceneObject extends Trs {
  name: string;
  /** `mesh`, `camera`, `light`, `empty`, or another Blender type in lower case (`curve`, …). */
  type: string;
  /**
   * The transform relative to the parent (glTF: the node's own TRS or matrix; Blender:
   * `matrix_local`). Equal to the world transform for a root object. The top-level
   * `translation`/`rotation`/`scale` are the world transform.
   */
  local: Trs;
  /** Name of the parent object, or null at the root. */
  parent: string | null;
  /**
   * What the object claims about itself (glTF `extras`, Blender custom properties), as compact
   * JSON, or undefined when it claims nothing. Named in reasons; never used as a measurement.
   */
  claims?: string;
  /** Names of the materials its mesh uses (unnamed ones as `""`). */
  materials: string[];
  camera?: SceneCamera;
  light?: SceneLight;
}

/** A material: its base colour and PBR factors. */
export interface SceneMaterial {
  name: string;
  /** Linear RGBA in [0, 1]. */
  baseColor: [number, number, number, number];
  metallic?: number;
  roughness?: number;
}

/** A whole scene as read from a file. */
export interface SceneDump {
  /** The objects of the scene that is checked (glTF: the default scene's node tree). */
  objects: SceneObject[];
  /** Name of the scene checked, when the file names it. */
  scene?: string;
  /**
   * Objects the file holds outside the checked scene (glTF nodes of another scene or of none),
   * with where they are: they are not part of what is shown, so they never satisfy a check.
   */
  outside?: { name: string; where: string }[];
  materials: SceneMaterial[];
  /** Name of the scene's active camera object (Blender only). */
  activeCamera?: string | null;
  /** Render settings (Blender only). */
  render?: { engine: string; resolution: [number, number] };
}

/** Quaternion (x, y, z, w) of Euler angles in degrees applied X, then Y, then Z (Blender's `XYZ`). */
export function quatFromEulerDeg([x, y, z]: Vec3): Quat {
  const r = Math.PI / 360;
  const [cx, sx, cy, sy, cz, sz] = [
    Math.cos(x * r),
    Math.sin(x * r),
    Math.cos(y * r),
    Math.sin(y * r),
    Math.cos(z * r),
    Math.sin(z * r),
  ];
  // q = qz · qy · qx
  return normalizeQuat([
    sx * cy * cz - cx * sy * sz,
    cx * sy * cz + sx * cy * sz,
    cx * cy * sz - sx * sy * cz,
    cx * cy * cz + sx * sy * sz,
  ]);
}

/** The quaternion scaled to unit length (identity for a zero quaternion). */
function normalizeQuat(q: Quat): Quat {
  const n = Math.hypot(...q);
  return n === 0 || !Number.isFinite(n) ? [0, 0, 0, 1] : [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}

/** Angle in degrees of the rotation taking `a` to `b` (0 … 180; q and −q are the same rotation). */
export function quatAngleDeg(a: Quat, b: Quat): number {
  const [p, q] = [normalizeQuat(a), normalizeQuat(b)];
  const dot = Math.abs(p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3]);
  return (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI;
}

/** `v` rotated by the unit quaternion `q`. */
export function rotate(q: Quat, v: Vec3): Vec3 {
  const [x, y, z, w] = q;
  // t = 2 · (q.xyz × v); v' = v + w·t + q.xyz × t
  const t: Vec3 = [2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])];
  return [
    v[0] + w * t[0] + (y * t[2] - z * t[1]),
    v[1] + w * t[1] + (z * t[0] - x * t[2]),
    v[2] + w * t[2] + (x * t[1] - y * t[0]),
  ];
}

/** Euclidean distance. */
export function distance(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(...a.map((v, i) => v - (b[i] ?? 0)));
}

/** Largest absolute component difference. */
export function maxAbsDiff(a: readonly number[], b: readonly number[]): number {
  return Math.max(0, ...a.map((v, i) => Math.abs(v - (b[i] ?? 0))));
}

/** Angle in degrees between two vectors (180 when one is zero). */
export function vecAngleDeg(a: Vec3, b: Vec3): number {
  const na = Math.hypot(...a);
  const nb = Math.hypot(...b);
  if (na === 0 || nb === 0) return 180;
  const c = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (na * nb);
  return (Math.acos(Math.max(-1, Math.min(1, c))) * 180) / Math.PI;
}

/**
 * Splits a column-major 4×4 matrix (glTF's layout) into translation, rotation and scale. A negative
 * determinant is put on the X scale.
 */
export function decompose(m: ArrayLike<number>): { t: Vec3; r: Quat; s: Vec3 } {
  const col = (i: number): Vec3 => [m[4 * i] ?? 0, m[4 * i + 1] ?? 0, m[4 * i + 2] ?? 0];
  const [c0, c1, c2] = [col(0), col(1), col(2)];
  const det =
    c0[0] * (c1[1] * c2[2] - c1[2] * c2[1]) -
    c1[0] * (c0[1] * c2[2] - c0[2] * c2[1]) +
    c2[0] * (c0[1] * c1[2] - c0[2] * c1[1]);
  const s: Vec3 = [Math.hypot(...c0) * (det < 0 ? -1 : 1), Math.hypot(...c1), Math.hypot(...c2)];
  const n = (c: Vec3, k: number): Vec3 => (k === 0 ? [0, 0, 0] : [c[0] / k, c[1] / k, c[2] / k]);
  const [r0, r1, r2] = [n(c0, s[0]), n(c1, s[1]), n(c2, s[2])];
  // Rotation matrix R[row][col] = r<col>[row]; Shepperd's method.
  const trace = r0[0] + r1[1] + r2[2];
  let q: Quat;
  if (trace > 0) {
    const k = 0.5 / Math.sqrt(trace + 1);
    q = [(r1[2] - r2[1]) * k, (r2[0] - r0[2]) * k, (r0[1] - r1[0]) * k, 0.25 / k];
  } else if (r0[0] > r1[1] && r0[0] > r2[2]) {
    const k = 2 * Math.sqrt(1 + r0[0] - r1[1] - r2[2]);
    q = [0.25 * k, (r1[0] + r0[1]) / k, (r2[0] + r0[2]) / k, (r1[2] - r2[1]) / k];
  } else if (r1[1] > r2[2]) {
    const k = 2 * Math.sqrt(1 + r1[1] - r0[0] - r2[2]);
    q = [(r1[0] + r0[1]) / k, 0.25 * k, (r2[1] + r1[2]) / k, (r2[0] - r0[2]) / k];
  } else {
    const k = 2 * Math.sqrt(1 + r2[2] - r0[0] - r1[1]);
    q = [(r2[0] + r0[2]) / k, (r2[1] + r1[2]) / k, 0.25 * k, (r0[1] - r1[0]) / k];
  }
  return { t: [m[12] ?? 0, m[13] ?? 0, m[14] ?? 0], r: normalizeQuat(q), s };
}
