/**
 * `fcstd.document`: opens a delivered FreeCAD document (a zip) and checks either its objects
 * (`check: objects`: how many objects of a type and/or label) or the shape stored for one object
 * (`check: shape`: the embedded BREP measured with OCCT, any `step.geometry` property).
 */
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { fmt, round, vec } from '../judge-value.js';
import { withTimeout } from '../timeout.js';
import type { Verdict, VerifierContext } from '../types.js';
import { brepPropertyVariants, judgeBrep, type BrepPropertyParams } from './brep-judge.js';
import { readFcstd, type FcDocument, type FcObject } from './fcstd-read.js';
import { FREECAD_IMAGE, recomputeFcstd } from './fcstd-recompute.js';
import { measureBrep, type BrepFacts } from './occt.js';

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
const ShapeCheck = z.discriminatedUnion(
  'property',
  brepPropertyVariants({
    check: z.literal('shape'),
    /** Label or internal name of the object; default: the last object that stores a shape. */
    object: z.string().optional(),
    /**
     * Reopen the document in FreeCAD, recompute every object and judge the recomputed shape; the
     * stored shape must agree with it (a stored BREP is only a cache a file can lie in). Default on.
     */
    recompute: z.boolean().default(true),
    /** Tool image with FreeCAD, for `recompute`. */
    image: z.string().default(FREECAD_IMAGE),
    /** Time limit of FreeCAD's reopen and recompute, in seconds. */
    recompute_timeout_sec: z.number().positive().default(120),
    ...timeout,
  }),
);

/** Params of `fcstd.document`. */
const FcstdDocumentParams = z.discriminatedUnion('check', [ObjectsCheck, ShapeCheck]);
export type FcstdDocumentParams = z.infer<typeof FcstdDocumentParams>;

/** The `fcstd.document` verifier. */
export const fcstdDocument = defineVerifier({
  name: 'fcstd.document',
  description:
    'Opens a FreeCAD .FCStd (zip): objects by type/label in Document.xml, and the shape of an object, recomputed by FreeCAD and measured with OCCT',
  params: FcstdDocumentParams,
  async judge({ ctx, params: p, file, nonce }) {
    const limitMs = p.parse_timeout_sec * 1000;
    // A corrupt zip or a time-out becomes a failing verdict in defineVerifier, naming the file.
    const doc = await withTimeout(() => readFcstd(file.bytes), limitMs, 'FCStd unzip', ctx.signal);
    if (p.check === 'objects') return judgeObjects(file.rel, p, doc);
    return judgeShape(ctx, file, p, doc, limitMs, nonce);
  },
});

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
  ctx: VerifierContext,
  file: { path: string; rel: string; bytes: Buffer },
  p: z.infer<typeof ShapeCheck>,
  doc: FcDocument,
  limitMs: number,
  nonce: string,
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
      reason: `${file.rel}: no object ${p.object === undefined ? 'stores a shape' : `labelled or named "${p.object}" stores a shape`} (objects with shapes: ${withShape.map((o) => o.label).join(', ') || 'none'})`,
    };
  const brep = await doc.entry(obj.shapeFile!);
  if (brep === null || brep.length === 0)
    return {
      passed: false,
      score: 0,
      measured: { shape_file: obj.shapeFile, bytes: brep?.length ?? 0 },
      reason: `${file.rel}: ${obj.label}'s shape file ${obj.shapeFile} is missing or empty`,
    };
  const stored = (await measureBrep(brep, 'brep', { limitMs })).facts;
  const at = `${file.rel} › ${obj.label}`;
  let facts = stored;
  if (p.recompute) {
    const r = await recomputeFcstd(ctx, file.path, file.bytes, obj.name, {
      image: p.image,
      timeoutMs: p.recompute_timeout_sec * 1000,
      marker: nonce,
    });
    const summary = { stored: summary3(stored) };
    if (!r.ok) return { passed: false, score: 0, measured: summary, reason: `${at}: ${r.reason}` };
    const bad = r.invalid.find((o) => o.name === obj.name);
    if (bad !== undefined)
      return {
        passed: false,
        score: 0,
        measured: { ...summary, invalid: r.invalid },
        reason: `${at}: FreeCAD cannot recompute ${obj.label} from the document (state ${bad.state.join(', ')})`,
      };
    const again = (await measureBrep(r.brep, 'brep', { limitMs })).facts;
    const diff = differences(stored, again);
    if (diff.length > 0)
      return {
        passed: false,
        score: 0,
        measured: { ...summary, recomputed: summary3(again) },
        expected: 'the stored shape equals the shape FreeCAD recomputes from the document',
        reason: `${at}: the stored shape is not what the document computes — FreeCAD's recompute of this ${obj.type} gives ${diff.join(', ')}; the stored BREP was replaced or is stale, so it is not evidence`,
      };
    facts = again;
  }
  const v = judgeBrep(`${obj.label} (${obj.type})`, p as BrepPropertyParams, facts, [
    ...obj.claims,
    ...doc.claims,
  ]);
  return {
    ...v,
    reason: `${file.rel} › ${v.reason.startsWith(obj.label) ? '' : `${obj.label}: `}${v.reason}`,
  };
}

/** Volume, faces and bounding box, for a verdict's `measured`. */
function summary3(f: BrepFacts): { volume: number; faces: number; bbox_min: number[]; bbox_max: number[] } {
  return {
    volume: round(f.volume),
    faces: f.faces,
    bbox_min: f.bboxMin,
    bbox_max: f.bboxMax,
  };
}

/** How the recomputed shape differs from the stored one (empty when they agree). */
function differences(stored: BrepFacts, again: BrepFacts): string[] {
  const scale = Math.max(1, ...stored.bboxMax.map((m, i) => Math.abs(m - stored.bboxMin[i]!)));
  const out: string[] = [];
  if (Math.abs(stored.volume - again.volume) > 1e-6 * Math.max(1, Math.abs(stored.volume)))
    out.push(`volume ${fmt(again.volume)} instead of the stored ${fmt(stored.volume)}`);
  const box = (f: BrepFacts): number[] => [...f.bboxMin, ...f.bboxMax];
  if (box(stored).some((x, i) => Math.abs(x - box(again)[i]!) > 1e-6 * scale))
    out.push(
      `bounding box ${vec(again.bboxMin)}–${vec(again.bboxMax)} instead of ${vec(stored.bboxMin)}–${vec(stored.bboxMax)}`,
    );
  if (stored.solids !== again.solids || stored.faces !== again.faces)
    out.push(
      `${again.solids} solid(s) and ${again.faces} faces instead of ${stored.solids} and ${stored.faces}`,
    );
  return out;
}

function matches(o: FcObject, r: z.infer<typeof ObjectRule>): boolean {
  if (r.type !== undefined && o.type !== r.type) return false;
  if (r.label === undefined) return true;
  const re = /^\/(.*)\/([a-z]*)$/.exec(r.label);
  return re === null ? o.label === r.label : new RegExp(re[1]!, re[2]).test(o.label);
}
