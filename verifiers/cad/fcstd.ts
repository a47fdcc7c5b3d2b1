/**
 * `fcstd.document`: opens a delivered FreeCAD document (a zip) and checks either its objects
 * (`check: objects`: how many objects of a type and/or label) or the shape stored for one object
 * (`check: shape`: the embedded BREP measured with OCCT, any `step.geometry` property).
 */
import { z } from 'zod';
import { readDeliverable } from '../deliverable.js';
import { isArtifactInvalid, isVerifierTimeout } from '../errors.js';
import { withTimeout } from '../timeout.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { BrepPropertyParams, judgeBrep } from './brep-judge.js';
import { readFcstd, type FcDocument, type FcObject } from './fcstd-read.js';
import { measureBrep } from './occt.js';

const timeout = {
  /** Time limit of unzipping and measuring, in seconds. */
  parse_timeout_sec: z.number().positive().default(30),
};

/** A requirement on the document's objects. */
const ObjectRule = z
  .object({
    /** FreeCAD type, e.g. `Part::Cut` (exact). */
    type: z.string().optional(),
    /** Label: exact, or a regular expression written `/…/`. */
    label: z.string().optional(),
    min: z.number().int().nonnegative().default(1),
    max: z.number().int().nonnegative().optional(),
  })
  .refine((r) => r.type !== undefined || r.label !== undefined, 'give type, label or both');

const ObjectsCheck = z.object({
  check: z.literal('objects'),
  expected: z.array(ObjectRule).min(1),
  ...timeout,
});
const ShapeCheck = z.intersection(
  z.object({
    check: z.literal('shape'),
    /** Label or internal name of the object; default: the last object that stores a shape. */
    object: z.string().optional(),
    ...timeout,
  }),
  BrepPropertyParams,
);

/** Params of `fcstd.document`. */
export const FcstdDocumentParams = z.union([ObjectsCheck, ShapeCheck]);
export type FcstdDocumentParams = z.infer<typeof FcstdDocumentParams>;

/** The `fcstd.document` verifier. */
export const fcstdDocument: Verifier = {
  name: 'fcstd.document',
  description:
    'Opens a FreeCAD .FCStd (zip): objects by type/label in Document.xml, and the stored BREP of an object measured with OCCT',
  params: FcstdDocumentParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = FcstdDocumentParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    const limitMs = p.parse_timeout_sec * 1000;
    try {
      const doc = await withTimeout(() => readFcstd(read.bytes), limitMs, 'FCStd unzip', ctx.signal);
      if (p.check === 'objects') return judgeObjects(read.rel, p, doc);
      return await judgeShape(read.rel, p, doc, limitMs);
    } catch (err) {
      if (isArtifactInvalid(err) || isVerifierTimeout(err))
        return { passed: false, score: 0, reason: `${read.rel}: ${err.message}` };
      throw err;
    }
  },
};

function judgeObjects(file: string, p: z.infer<typeof ObjectsCheck>, doc: FcDocument): Verdict {
  const rows = p.expected.map((r) => {
    const n = doc.objects.filter((o) => matches(o, r)).length;
    const ok = n >= r.min && (r.max === undefined || n <= r.max);
    const what = [r.type, r.label === undefined ? undefined : `label ${r.label}`]
      .filter(Boolean)
      .join(' with ');
    const range = r.max === undefined ? `≥ ${r.min}` : r.max === r.min ? `${r.min}` : `${r.min}–${r.max}`;
    return { ok, n, text: `${n} ${what} (expected ${range})` };
  });
  const ok = rows.every((r) => r.ok);
  return {
    passed: ok,
    score: ok ? 1 : 0,
    measured: doc.objects.map((o) => ({ type: o.type, name: o.name, label: o.label })),
    expected: p.expected,
    tolerance: 'counts within [min, max]',
    reason: `${file} (FreeCAD ${doc.programVersion || '?'}, ${doc.objects.length} objects): ${rows.map((r) => r.text).join('; ')}${ok ? '' : ' → not as required'}`,
  };
}

async function judgeShape(
  file: string,
  p: z.infer<typeof ShapeCheck>,
  doc: FcDocument,
  limitMs: number,
): Promise<Verdict> {
  const withShape = doc.objects.filter((o) => o.shapeFile !== undefined);
  const obj =
    p.object === undefined
      ? withShape.at(-1)
      : (withShape.find((o) => o.label === p.object) ?? withShape.find((o) => o.name === p.object));
  if (obj === undefined)
    return {
      passed: false,
      score: 0,
      expected: p.object ?? 'an object with a shape',
      measured: withShape.map((o) => o.label),
      reason: `${file}: no object ${p.object === undefined ? 'stores a shape' : `labelled or named "${p.object}" stores a shape`} (objects with shapes: ${withShape.map((o) => o.label).join(', ') || 'none'})`,
    };
  const brep = await doc.entry(obj.shapeFile!);
  if (brep === null || brep.length === 0)
    return {
      passed: false,
      score: 0,
      reason: `${file}: ${obj.label}'s shape file ${obj.shapeFile} is missing or empty`,
    };
  const { facts } = await measureBrep(brep, 'brep', { limitMs });
  const v = judgeBrep(`${obj.label} (${obj.type})`, p as BrepPropertyParams, facts);
  return { ...v, reason: `${file} › ${v.reason.startsWith(obj.label) ? '' : `${obj.label}: `}${v.reason}` };
}

function matches(o: FcObject, r: z.infer<typeof ObjectRule>): boolean {
  if (r.type !== undefined && o.type !== r.type) return false;
  if (r.label === undefined) return true;
  const re = /^\/(.*)\/([a-z]*)$/.exec(r.label);
  return re === null ? o.label === r.label : new RegExp(re[1]!, re[2]).test(o.label);
}
