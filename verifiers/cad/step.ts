/**
 * `step.geometry`: reopens a delivered STEP (or OCCT BREP) file with OCCT itself, compiled to
 * WebAssembly, and checks one property on the exact geometry: `valid`, `volume`, `area`,
 * `center_of_mass`, `bbox`, `counts`, `face_types` or `holes`. A STEP file is first read as text:
 * one cut short, with a section left open or with `#refs` to entities it never defines is reported
 * as such before OCCT runs. The header, comments and PRODUCT names are never evidence.
 */
import path from 'node:path';
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { brepPropertyVariants, judgeBrep } from './brep-judge.js';
import { measureBrep, type BrepKind } from './occt.js';
import { scanStep } from './step-text.js';

const common = {
  /** `auto`: from the deliverable's declared format, else its extension (`.brep`/`.brp` → BREP). */
  format: z.enum(['auto', 'step', 'brep']).default('auto'),
  /** Time limit of reading and measuring, in seconds. */
  parse_timeout_sec: z.number().positive().default(30),
};

/** Params of `step.geometry`: a property (see `BrepPropertyParams`) plus `format` and time limit. */
const StepGeometryParams = z.discriminatedUnion('property', brepPropertyVariants(common));
export type StepGeometryParams = z.infer<typeof StepGeometryParams>;

/** The `step.geometry` verifier. */
export const stepGeometry = defineVerifier({
  name: 'step.geometry',
  description:
    'Reopens a STEP/BREP file with OCCT (wasm): whole file and resolved #refs, validity, exact volume/area/centre of mass, bbox, topology counts, face types, holes',
  params: StepGeometryParams,
  async judge({ params: p, criterion, file }) {
    const kind = brepKind(p.format, criterion.format, file.rel);
    const scan = kind === 'step' ? scanStep(file.bytes) : null;
    if (scan?.problem != null)
      return {
        passed: false,
        score: 0,
        measured: scan.facts,
        expected: 'a whole ISO 10303-21 file whose #refs all resolve',
        reason: `${file.rel}: ${scan.problem}`,
      };
    // An unreadable file or a time-out becomes a failing verdict in defineVerifier, naming the file.
    const { facts } = await measureBrep(file.bytes, kind, { limitMs: p.parse_timeout_sec * 1000 });
    return judgeBrep(file.rel, p, facts, scan?.claims ?? []);
  },
});

/** The B-rep kind to read a file as. */
function brepKind(param: 'auto' | BrepKind, declared: string | undefined, rel: string): BrepKind {
  if (param !== 'auto') return param;
  const f = (declared ?? path.extname(rel).slice(1)).toLowerCase();
  return f === 'brep' || f === 'brp' ? 'brep' : 'step';
}
