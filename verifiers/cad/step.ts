/**
 * `step.geometry`: reopens a delivered STEP (or OCCT BREP) file with OCCT itself, compiled to
 * WebAssembly, and checks one property on the exact geometry: `valid`, `volume`, `area`,
 * `center_of_mass`, `bbox`, `counts`, `face_types` or `holes`. A corrupt, truncated, empty or
 * wrong-format file is a failing verdict naming OCCT's complaint.
 */
import path from 'node:path';
import { z } from 'zod';
import { readDeliverable } from '../deliverable.js';
import { isArtifactInvalid, isVerifierTimeout } from '../errors.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { BrepPropertyParams, judgeBrep } from './brep-judge.js';
import { measureBrep, type BrepKind } from './occt.js';

const common = z.object({
  /** `auto`: from the deliverable's declared format, else its extension (`.brep`/`.brp` → BREP). */
  format: z.enum(['auto', 'step', 'brep']).default('auto'),
  /** Time limit of reading and measuring, in seconds. */
  parse_timeout_sec: z.number().positive().default(30),
});

/** Params of `step.geometry`: a property (see `BrepPropertyParams`) plus `format` and time limit. */
export const StepGeometryParams = z.intersection(BrepPropertyParams, common);
export type StepGeometryParams = z.infer<typeof StepGeometryParams>;

/** The `step.geometry` verifier. */
export const stepGeometry: Verifier = {
  name: 'step.geometry',
  description:
    'Reopens a STEP/BREP file with OCCT (wasm): validity, exact volume/area/centre of mass, bbox, topology counts, face types, holes',
  params: StepGeometryParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = StepGeometryParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    const kind = brepKind(p.format, criterion.format, read.rel);
    try {
      const { facts } = await measureBrep(read.bytes, kind, { limitMs: p.parse_timeout_sec * 1000 });
      return judgeBrep(read.rel, p, facts);
    } catch (err) {
      if (isArtifactInvalid(err) || isVerifierTimeout(err))
        return { passed: false, score: 0, reason: `${read.rel}: ${err.message}` };
      throw err;
    }
  },
};

/** The B-rep kind to read a file as. */
export function brepKind(param: 'auto' | BrepKind, declared: string | undefined, rel: string): BrepKind {
  if (param !== 'auto') return param;
  const f = (declared ?? path.extname(rel).slice(1)).toLowerCase();
  return f === 'brep' || f === 'brp' ? 'brep' : 'step';
}
