/**
 * `shape.similarity`: intersection over union of the delivered solid (STL, STEP or BREP) and a
 * reference solid kept in the task folder (`hidden/reference.step` or `.stl`), computed with
 * manifold-3d booleans after a rigid alignment: none, centroids together, or also principal axes
 * (the best of the four proper sign choices). Score = IoU; passes at ≥ `min_iou`.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { fmt, round, vec } from '../judge-value.js';
import { taskFile } from '../params.js';
import {
  affine,
  frameRotation,
  massMoments,
  principalAxes,
  PROPER_FLIPS,
  type M3,
  type V3,
} from './align.js';
import { loadManifold } from './manifold.js';
import { solidKind, solidMesh } from './solid-mesh.js';
import type { IndexedMesh } from './weld.js';

/** Reference files tried, in order, when `reference` is not given. */
const DEFAULT_REFERENCES = ['hidden/reference.step', 'hidden/reference.stl', 'hidden/reference.brep'];

/** Params of `shape.similarity`. */
const ShapeSimilarityParams = z.object({
  /** Reference solid, relative to the task folder; default: the first of `DEFAULT_REFERENCES` present. */
  reference: taskFile().optional(),
  /** Smallest IoU that passes. */
  min_iou: z.number().gt(0).max(1).default(0.9),
  /** `none`: as placed; `centroid`: volume centroids together; `principal`: also principal axes. */
  align: z.enum(['none', 'centroid', 'principal']).default('centroid'),
  /** Linear deflection when a B-rep is meshed, in model units. */
  deflection: z.number().positive().default(0.05),
  /** Time limit of reading each file, in seconds. */
  parse_timeout_sec: z.number().positive().default(60),
});
export type ShapeSimilarityParams = z.infer<typeof ShapeSimilarityParams>;

const IDENTITY: M3 = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];

/** The `shape.similarity` verifier. */
export const shapeSimilarity = defineVerifier({
  name: 'shape.similarity',
  description:
    'IoU of the delivered solid (STL/STEP/BREP) against a hidden reference solid, after centroid or principal-axis alignment (manifold-3d)',
  params: ShapeSimilarityParams,
  async judge({ ctx, params: p, criterion, file }) {
    const ref = await findReference(ctx.taskDir, p.reference);
    if (ref === null)
      return {
        passed: false,
        score: 0,
        expected: { reference: p.reference ?? DEFAULT_REFERENCES },
        reason: `task error: no reference solid in the task folder (looked for ${p.reference ?? DEFAULT_REFERENCES.join(', ')})`,
      };
    const opts = { limitMs: p.parse_timeout_sec * 1000, deflection: p.deflection };
    // A delivery that is no solid becomes a failing verdict in defineVerifier, naming the file.
    const got = await solidMesh(file.bytes, solidKind(criterion.format, file.rel), opts);
    // A broken reference is the task's fault, not the agent's: it is reported as such.
    const want = await solidMesh(await readFile(ref.full), solidKind(undefined, ref.rel), opts).catch(
      (err: unknown) => {
        throw new Error(
          `reference ${ref.rel} is not a solid: ${err instanceof Error ? err.message : String(err)}`,
        );
      },
    );
    const r = await bestIou(got, want, p.align);
    const ok = r.iou >= p.min_iou;
    return {
      passed: ok,
      score: r.iou,
      measured: {
        iou: round(r.iou),
        volume: round(r.volume),
        reference_volume: round(r.referenceVolume),
        intersection: round(r.intersection),
        alignment: r.alignment,
        translation: r.translation.map(round),
      },
      expected: { min_iou: p.min_iou, reference: ref.rel },
      tolerance: { align: p.align, deflection: p.deflection },
      reason: `IoU ${fmt(r.iou)} of ${file.rel} (volume ${fmt(r.volume)}) against ${ref.rel} (volume ${fmt(r.referenceVolume)}) after ${r.alignment} alignment (moved by ${vec(r.translation)}) → ${ok ? 'at least' : 'below'} the required ${p.min_iou}`,
    };
  },
});

async function findReference(
  taskDir: string,
  given: string | undefined,
): Promise<{ full: string; rel: string } | null> {
  for (const rel of given === undefined ? DEFAULT_REFERENCES : [given]) {
    const full = path.join(taskDir, rel);
    const st = await stat(full).catch(() => null);
    if (st?.isFile() === true && st.size > 0) return { full, rel };
  }
  return null;
}

/** The IoU of `a` moved onto `b`, best over the alignments `align` allows. */
async function bestIou(
  a: IndexedMesh,
  b: IndexedMesh,
  align: ShapeSimilarityParams['align'],
): Promise<{
  iou: number;
  volume: number;
  referenceVolume: number;
  intersection: number;
  alignment: string;
  translation: V3;
}> {
  const wasm = await loadManifold();
  const toManifold = (m: IndexedMesh) =>
    new wasm.Manifold(new wasm.Mesh({ numProp: 3, vertProperties: m.vertProperties, triVerts: m.triVerts }));
  const ma = toManifold(a);
  const mb = toManifold(b);
  try {
    const va = ma.volume();
    const vb = mb.volume();
    const A = massMoments(a);
    const B = massMoments(b);
    const candidates: { name: string; r: M3; c: V3; d: V3 }[] = [
      { name: 'none', r: IDENTITY, c: [0, 0, 0], d: [0, 0, 0] },
    ];
    if (align !== 'none') candidates.push({ name: 'centroid', r: IDENTITY, c: A.centroid, d: B.centroid });
    if (align === 'principal') {
      const fa = principalAxes(A.covariance).axes;
      const fb = principalAxes(B.covariance).axes;
      PROPER_FLIPS.forEach((flip, i) =>
        candidates.push({
          name: `principal #${i + 1}`,
          r: frameRotation(fa, fb, flip),
          c: A.centroid,
          d: B.centroid,
        }),
      );
    }
    let best = { iou: -1, intersection: 0, alignment: 'none', translation: [0, 0, 0] as V3 };
    for (const cand of candidates) {
      const moved = ma.transform(affine(cand.r, cand.c, cand.d) as Parameters<typeof ma.transform>[0]);
      const inter = moved.intersect(mb);
      const vi = inter.volume();
      inter.delete();
      moved.delete();
      const iou = vi / (va + vb - vi);
      if (iou > best.iou)
        best = {
          iou,
          intersection: vi,
          alignment: cand.name,
          translation: [cand.d[0] - cand.c[0], cand.d[1] - cand.c[1], cand.d[2] - cand.c[2]],
        };
    }
    return { ...best, iou: Math.max(0, best.iou), volume: va, referenceVolume: vb };
  } finally {
    ma.delete();
    mb.delete();
  }
}
