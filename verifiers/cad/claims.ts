/**
 * What an artifact says about itself: an STL header or solid name, a STEP FILE_DESCRIPTION,
 * FILE_NAME, comment or PRODUCT name, a property stored in an FCStd's Document.xml, a DXF header
 * variable. None of it is evidence: the verifiers measure the geometry. When a verdict fails and
 * the file's own words state what the criterion expects, the reason names that claim, so a reviewer
 * sees a forging attempt as one rather than as a plain wrong value.
 */
import type { Verdict } from '../types.js';

/** One thing a file says about itself. */
export interface SelfClaim {
  /** Where it is said, e.g. `the binary STL header`, `FILE_DESCRIPTION`. */
  where: string;
  /** What it says (trimmed, at most 120 characters). */
  text: string;
}

/** Words that, in a file's self-description, speak of a property a criterion checks. */
const KEYWORDS: Record<string, readonly string[]> = {
  volume: ['volume', 'vol', 'mm3', 'mm^3', 'mm³', 'mass', 'weight'],
  area: ['area', 'mm2', 'mm^2', 'mm²'],
  bbox: ['bbox', 'bounding', 'size', 'extent', 'dimension'],
  extents: ['extent', 'extmin', 'extmax', 'size', 'bounding'],
  center_of_mass: ['centre', 'center', 'centroid', 'com'],
  counts: ['solid', 'shell', 'face', 'edge', 'vert'],
  face_types: ['face', 'plane', 'cylind'],
  holes: ['hole', 'bore', 'drill'],
  genus: ['genus', 'hole'],
  components: ['component', 'body', 'bodies', 'piece'],
  manifold: ['manifold', 'watertight', 'closed', 'valid'],
  valid: ['valid', 'brepcheck'],
};

/** The finite numbers of a criterion's expectation that a forger would write (not 0, 1 or 2). */
export function wantedNumbers(x: unknown): number[] {
  if (typeof x === 'number') return Number.isFinite(x) && Math.abs(x) > 2 ? [x] : [];
  if (Array.isArray(x)) return x.flatMap(wantedNumbers);
  if (typeof x === 'object' && x !== null) return Object.values(x).flatMap(wantedNumbers);
  return [];
}

const NUMBER = /[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g;

/** Whether `text` states `n`: a number within 0.1 % of it. */
function states(text: string, n: number): boolean {
  return (text.match(NUMBER) ?? []).some((s) => {
    const v = Number(s);
    if (!Number.isFinite(v)) return false;
    return Math.abs(v - n) <= 1e-3 * Math.abs(n);
  });
}

/**
 * The claims that speak of `property` or state one of `wanted`: what a file says about itself to
 * pass. Small integers match only beside a keyword (a date or a version has them everywhere).
 */
function claimsAbout(claims: readonly SelfClaim[], property: string, wanted: readonly number[]): SelfClaim[] {
  const words = KEYWORDS[property] ?? [property];
  return claims.filter((c) => {
    const t = c.text.toLowerCase();
    const named = words.some((w) => new RegExp(`(^|[^a-z])${w.replace(/[\^$]/g, '\\$&')}`).test(t));
    return named || wanted.some((n) => !(Number.isInteger(n) && Math.abs(n) < 100) && states(t, n));
  });
}

/**
 * A failing verdict with the file's self-claims about the property named in its reason: they are
 * not the evidence, the geometry is. A passing verdict is returned as it is.
 *
 * @param measuredFrom what the value was measured from, e.g. `the 1052 triangles`.
 */
export function naming(
  v: Verdict,
  claims: readonly SelfClaim[],
  property: string,
  wanted: readonly number[],
  measuredFrom: string,
): Verdict {
  if (v.passed) return v;
  const found = claimsAbout(claims, property, wanted);
  if (found.length === 0) return v;
  const said = found
    .slice(0, 3)
    .map((c) => `${c.where} claims "${c.text}"`)
    .join(' and ');
  return {
    ...v,
    reason: `${v.reason}; ${said}, but what a file says about itself is not evidence: ${property} was measured from ${measuredFrom}`,
  };
}

/** A claim, with its text cleaned and capped; null when nothing is said. */
export function claim(where: string, text: string): SelfClaim | null {
  const t = text
    .replace(/[\x00-\x1f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return t === '' ? null : { where, text: t.length > 120 ? `${t.slice(0, 117)}…` : t };
}
