/**
 * Holes from cylindrical faces: faces of one hole (OCCT may split a cylinder at its seam) are merged
 * by axis and radius, then matched against expected holes by diameter, axis direction and the
 * distance from an expected point to the hole's axis.
 */
import type { CylinderFace, Vec3 } from './occt-facts.js';

/** A hole in the part: one cylinder axis and diameter, possibly several faces. */
export interface Hole {
  diameter: number;
  /** The point of the axis nearest the origin. */
  axisPoint: Vec3;
  axis: Vec3;
  faces: number;
}

/** An expected hole: any point on its axis, the axis direction, the diameter. */
export interface ExpectedHole {
  at: Vec3;
  axis: Vec3;
  diameter: number;
}

/** Tolerances of hole matching. */
export interface HoleTolerance {
  /** Largest distance from the expected point to the hole axis. */
  position: number;
  /** Largest diameter difference. */
  diameter: number;
  /** Largest angle between axes, in degrees. */
  angleDeg: number;
}

/** The distinct holes among cylindrical faces (bosses and shafts are left out). */
export function holesOf(cylinders: readonly CylinderFace[], tol = 1e-6): Hole[] {
  const holes: Hole[] = [];
  for (const c of cylinders) {
    if (!c.hole) continue;
    const same = holes.find(
      (h) =>
        Math.abs(h.diameter - 2 * c.radius) <= tol * Math.max(1, h.diameter) &&
        dist(h.axisPoint, c.axisPoint) <= tol * Math.max(1, h.diameter) &&
        Math.abs(dot(h.axis, c.axis)) >= 1 - 1e-9,
    );
    if (same !== undefined) same.faces++;
    else holes.push({ diameter: 2 * c.radius, axisPoint: c.axisPoint, axis: c.axis, faces: 1 });
  }
  return holes;
}

/** Distance from `p` to the axis of `h`. */
function distanceToAxis(p: Vec3, h: Pick<Hole, 'axisPoint' | 'axis'>): number {
  const d = sub(p, h.axisPoint);
  const t = dot(d, h.axis);
  return Math.hypot(d[0] - t * h.axis[0], d[1] - t * h.axis[1], d[2] - t * h.axis[2]);
}

/** Whether hole `h` satisfies `e` within `tol`. */
function holeMatches(h: Hole, e: ExpectedHole, tol: HoleTolerance): boolean {
  const n = Math.hypot(...e.axis);
  const cos = Math.abs(dot(h.axis, e.axis)) / (n === 0 ? 1 : n);
  return (
    Math.abs(h.diameter - e.diameter) <= tol.diameter &&
    cos >= Math.cos((tol.angleDeg * Math.PI) / 180) &&
    distanceToAxis(e.at, h) <= tol.position
  );
}

/**
 * Matches expected holes to distinct found holes, one to one (greedy by distance), and returns the
 * expected ones left unmatched and the found ones no expectation took.
 */
export function matchHoles(
  found: readonly Hole[],
  expected: readonly ExpectedHole[],
  tol: HoleTolerance,
): { missing: ExpectedHole[]; extra: Hole[]; matched: { expected: ExpectedHole; hole: Hole }[] } {
  const free = new Set(found);
  const matched: { expected: ExpectedHole; hole: Hole }[] = [];
  const missing: ExpectedHole[] = [];
  for (const e of expected) {
    const best = [...free]
      .filter((h) => holeMatches(h, e, tol))
      .sort((a, b) => distanceToAxis(e.at, a) - distanceToAxis(e.at, b))[0];
    if (best === undefined) missing.push(e);
    else {
      free.delete(best);
      matched.push({ expected: e, hole: best });
    }
  }
  return { missing, extra: [...free], matched };
}

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const dist = (a: Vec3, b: Vec3): number => Math.hypot(...sub(a, b));
