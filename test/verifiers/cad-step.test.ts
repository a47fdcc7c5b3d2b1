/**
 * `step.geometry` and `fcstd.document` on artifacts made by the real apps: an L-bracket from
 * FreeCAD (STEP, BREP and FCStd), an alternative block with a hole from gmsh's OpenCASCADE kernel,
 * and defective files derived from them (truncated, corrupt, empty, wrong format, wrong values).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { stopOcct } from '../../verifiers/cad/index.js';
import { holesOf, matchHoles } from '../../verifiers/cad/holes.js';
import { verifyCriterion, type RunTool, type Verdict } from '../../verifiers/index.js';
import { contextFor, makeWithTool, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const FREECAD_IMAGE = 'engiloop/freecad:latest';
const BRACKET_PY = `
import FreeCAD as App, Part
doc = App.newDocument("Bracket")
solid = Part.makeBox(60, 40, 5).fuse(Part.makeBox(5, 40, 40)).removeSplitter()
for x, y in [(20, 10), (45, 10), (20, 30), (45, 30)]:
    solid = solid.cut(Part.makeCylinder(3, 15, App.Vector(x, y, -5)))
solid = solid.cut(Part.makeCylinder(4, 15, App.Vector(-5, 20, 25), App.Vector(1, 0, 0)))
f = doc.addObject("Part::Feature", "Bracket")
f.Shape = solid
f.Label = "Bracket"
doc.addObject("Part::Box", "Spare")
doc.recompute()
solid.exportStep("/workspace/bracket.step")
solid.exportBrep("/workspace/bracket.brep")
doc.saveAs("/workspace/bracket.FCStd")
# The same document saying, in a property, a volume that is wrong: the geometry decides.
f.addProperty("App::PropertyFloat", "Volume", "Report", "volume in mm3")
f.Volume = 12345.0
doc.saveAs("/workspace/wrong-claim.FCStd")
`;
/** 60·40·5 + 5·40·35 − 4·π·9·5 − π·16·5 */
const BRACKET_VOLUME = 19000 - 4 * Math.PI * 9 * 5 - Math.PI * 16 * 5;
const BRACKET_HOLES = [
  { at: [20, 10, 0], axis: 'z', diameter: 6 },
  { at: [45, 10, 0], axis: 'z', diameter: 6 },
  { at: [20, 30, 0], axis: 'z', diameter: 6 },
  { at: [45, 30, 0], axis: 'z', diameter: 6 },
  { at: [0, 20, 25], axis: 'x', diameter: 8 },
];
/** A 20 mm cube centred at the origin with an 8 mm hole along Y, made by gmsh (OpenCASCADE). */
const BLOCK_GEO = `SetFactory("OpenCASCADE");
Box(1) = {-10, -10, -10, 20, 20, 20};
Cylinder(2) = {0, -15, 0, 0, 30, 0, 4};
BooleanDifference{ Volume{1}; Delete; }{ Volume{2}; Delete; }
`;
const BLOCK_VOLUME = 8000 - Math.PI * 16 * 20;

const kit = toolKit('verifiers-cad-step');
let dir: { path: string } & AsyncDisposable;
let removedPoint = 0;
const files: Record<string, Buffer> = {};

async function freecad(runTool: RunTool, script: string, outputs: string[]): Promise<Record<string, Buffer>> {
  await using src = await tempDir('fc');
  await writeFiles(src.path, { 'make.py': script });
  const r = await runTool({
    image: FREECAD_IMAGE,
    command: 'freecadcmd make.py',
    files: [{ hostPath: path.join(src.path, 'make.py'), dest: 'make.py' }],
    timeoutMs: 120_000,
    collect: outputs,
  });
  for (const o of outputs)
    if (r.files[o] === undefined)
      throw new Error(`FreeCAD made no ${o} (exit ${r.exitCode}): ${r.stderr}${r.stdout}`);
  return r.files;
}

beforeAll(async () => {
  dir = await tempDir('cad-step');
  Object.assign(
    files,
    await freecad(kit.runTool, BRACKET_PY, [
      'bracket.step',
      'bracket.brep',
      'bracket.FCStd',
      'wrong-claim.FCStd',
    ]),
  );
  files['block.step'] = await makeWithTool(
    kit.runTool,
    'gmsh block.geo -0 -o block.step',
    { 'block.geo': BLOCK_GEO },
    'block.step',
  );
  const step = files['bracket.step']!;
  files['block-copy.step'] = Buffer.concat([files['block.step'], Buffer.from('\n')]);
  files['truncated.step'] = step.subarray(0, Math.floor(step.length / 2));
  const text = step.toString('latin1');
  // One entity taken out (the first point, which an axis placement refers to).
  const point = /\n(#(\d+) = CARTESIAN_POINT\([^;]*\);)/.exec(text)!;
  removedPoint = Number(point[2]);
  files['removed-entity.step'] = Buffer.from(text.replace(point[1]!, ''), 'latin1');
  files['no-end.step'] = Buffer.from(text.replace('END-ISO-10303-21;', ''), 'latin1');
  files['no-endsec.step'] = Buffer.from(
    text.replace(/ENDSEC;\s*END-ISO-10303-21;/, 'END-ISO-10303-21;'),
    'latin1',
  );
  files['garbage.step'] = Buffer.from('ISO-10303-21;\nHEADER;\nthis is not STEP\n');
  files['empty.step'] = Buffer.alloc(0);
  files['mesh.step'] = Buffer.from('solid x\nfacet normal 0 0 1\nendsolid x\n');
  files['truncated.brep'] = files['bracket.brep']!.subarray(0, 3000);
  files['bracket.zip.step'] = files['bracket.FCStd']!;
  const fc = files['bracket.FCStd']!;
  files['truncated.FCStd'] = fc.subarray(0, fc.length - 200);
  files['not-a-zip.FCStd'] = step;
  await writeFiles(dir.path, files);
}, 300_000);

afterAll(async () => {
  await dir?.[asyncDispose]();
  await kit[asyncDispose]();
  await stopOcct();
});

function check(verifier: string, deliverable: string, params: Record<string, unknown>): Promise<Verdict> {
  return verifyCriterion(contextFor(kit, dir.path), {
    id: 'c',
    verifier,
    deliverable,
    role: 'check',
    params,
  });
}
const step = (deliverable: string, params: Record<string, unknown>) =>
  check('step.geometry', deliverable, params);

describe('step.geometry on the FreeCAD bracket (STEP)', () => {
  it('is a valid single solid with 8 planar and 5 cylindrical faces', async () => {
    expect(await step('bracket.step', { property: 'valid' })).toMatchObject({
      passed: true,
      measured: { valid: true, solids: 1 },
    });
    const c = await step('bracket.step', {
      property: 'counts',
      expected: { solids: 1, shells: 1, faces: 13 },
    });
    expect(c.passed, c.reason).toBe(true);
    const f = await step('bracket.step', { property: 'face_types', expected: { plane: 8, cylinder: 5 } });
    expect(f.passed, f.reason).toBe(true);
  });
  it('has the exact volume, area, centre of mass and bbox', async () => {
    const v = await step('bracket.step', { property: 'volume', expected: BRACKET_VOLUME, rel_tol: 1e-9 });
    expect(v.passed, v.reason).toBe(true);
    expect(v.measured as number).toBeCloseTo(BRACKET_VOLUME, 3);
    const b = await step('bracket.step', {
      property: 'bbox',
      expected: [60, 40, 40],
      min: [0, 0, 0],
      abs_tol: 1e-6,
    });
    expect(b.passed, b.reason).toBe(true);
    const a = await step('bracket.step', { property: 'area', expected: 9125.929, abs_tol: 0.01 });
    expect(a.passed, a.reason).toBe(true);
    // The base's 4 holes sit symmetrically in Y, so the centre of mass is at Y = 20.
    const com = await step('bracket.step', {
      property: 'center_of_mass',
      expected: [19.7157, 20, 9.8884],
      abs_tol: 0.001,
    });
    expect(com.passed, com.reason).toBe(true);
  });
  it('finds the five holes at their positions, and no others', async () => {
    const v = await step('bracket.step', { property: 'holes', expected: BRACKET_HOLES });
    expect(v.passed, v.reason).toBe(true);
    expect(v.measured).toHaveLength(5);
  });
  it('reads the BREP export the same way', async () => {
    const v = await step('bracket.brep', { property: 'volume', expected: BRACKET_VOLUME, rel_tol: 1e-9 });
    expect(v.passed, v.reason).toBe(true);
    expect((await step('bracket.brep', { property: 'holes', expected: BRACKET_HOLES })).passed).toBe(true);
  });
});

describe('step.geometry on an alternative valid part (gmsh/OpenCASCADE block with a hole)', () => {
  it('passes its own volume, bbox and hole', async () => {
    expect((await step('block.step', { property: 'valid' })).passed).toBe(true);
    const v = await step('block.step', { property: 'volume', expected: BLOCK_VOLUME, rel_tol: 1e-6 });
    expect(v.passed, v.reason).toBe(true);
    const b = await step('block.step', { property: 'bbox', expected: [20, 20, 20], min: [-10, -10, -10] });
    expect(b.passed, b.reason).toBe(true);
    const h = await step('block.step', {
      property: 'holes',
      expected: [{ at: [0, 123, 0], axis: 'y', diameter: 8 }],
    });
    expect(h.passed, h.reason).toBe(true);
  });
});

describe('step.geometry fails wrong values for the intended reason', () => {
  it('wrong volume and bbox', async () => {
    const v = await step('bracket.step', { property: 'volume', expected: 19000, rel_tol: 0.001 });
    expect(v).toMatchObject({ passed: false, score: 0, expected: 19000 });
    expect(v.reason).toMatch(/outside tolerance/);
    const b = await step('bracket.step', { property: 'bbox', expected: [60, 40, 45] });
    expect(b.reason).toMatch(/largest deviation 5/);
  });
  it('a hole expected elsewhere is missing and the real one is unexpected', async () => {
    const moved = BRACKET_HOLES.map((h, i) => (i === 3 ? { ...h, at: [45, 25, 0] } : h));
    const v = await step('bracket.step', { property: 'holes', expected: moved });
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /no ⌀6 hole with its axis through \[45, 25, 0\]; unexpected hole ⌀6 through \[45, 30, 0\]/,
    );
  });
  it('wrong counts and face types name what differs', async () => {
    const c = await step('bracket.step', { property: 'counts', expected: { faces: 12 } });
    expect(c.reason).toMatch(/13 faces \(expected 12\) → faces differ/);
    const f = await step('bracket.step', { property: 'face_types', expected: { cylinder: 4 } });
    expect(f.reason).toMatch(/5 cylinder instead of 4/);
  });
  it('a misspelled tolerance is refused with the key it means', async () => {
    const v = await step('bracket.step', { property: 'volume', expected: BRACKET_VOLUME, abs_tl: 1 });
    expect(v.reason).toMatch(/params.abs_tl: unknown param of step.geometry — did you mean abs_tol\?/);
    const o = await check('fcstd.document', 'bracket.FCStd', {
      check: 'objects',
      expected: [{ type: 'Part::Box', mn: 1 }],
    });
    expect(o.reason).toMatch(/params.expected\[0\].mn: unknown param of fcstd.document — did you mean min\?/);
  });
  it('a volume goal: range, target, and lower is better (full marks at or below 18 200)', async () => {
    const r = await step('bracket.step', { property: 'volume', range: { max: 18000 } });
    expect(r).toMatchObject({ passed: false, measured: expect.closeTo(BRACKET_VOLUME, 3) });
    expect(r.reason).toMatch(/volume = 18183.2, required ≤ 18000 → outside by 183.186 the range/);
    const t = await step('bracket.step', { property: 'volume', target: BRACKET_VOLUME });
    expect(t).toMatchObject({ passed: true, score: 1 });
    const l = await step('bracket.step', {
      property: 'volume',
      lower_is_better: { full: 17000, zero: 19000 },
      unit: 'mm³',
    });
    // (19000 − 18183.186) / 2000 = 0.408
    expect(l.score).toBeCloseTo(0.408, 3);
    expect(l.reason).toMatch(
      /volume = 18183.2 mm³: lower is better → score 0.408 \(1 at ≤ 17000 mm³, 0 at ≥ 19000 mm³\)/,
    );
    const both = await step('bracket.step', { property: 'volume', target: 1, range: { max: 2 } });
    expect(both.reason).toMatch(/task error: invalid params for step.geometry/);
  });
  it('closeness scores a volume continuously', async () => {
    const v = await step('bracket.step', {
      property: 'volume',
      expected: BRACKET_VOLUME * 1.1,
      closeness: { full: 0.02, zero: 0.2 },
    });
    expect(v.passed).toBe(true);
    // |V − 1.1 V| / 1.1 V = 9.09 % → (20 − 9.09) / 18 = 0.606
    expect(v.score).toBeCloseTo(0.606, 3);
  });
});

describe('step.geometry fails defective files with the reason, never a throw', () => {
  it.each([
    ['truncated.step', /^truncated.step: truncated STEP file: no END-ISO-10303-21; at the end — it stops/],
    ['garbage.step', /truncated STEP file: .*the HEADER section is not closed by ENDSEC;/],
    ['mesh.step', /not a STEP file/],
    ['bracket.zip.step', /not a STEP file/],
    ['truncated.brep', /OCCT read no shape from the BREP|OCCT failed/],
    ['empty.step', /deliverable empty.step is empty/],
    ['missing.step', /deliverable missing.step is missing/],
  ])('%s', async (file, reason) => {
    const v = await step(file, { property: 'valid' });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(reason);
  });
  it('a STEP cut in half is reported as truncated, with what was read, before OCCT runs', async () => {
    const v = await step('truncated.step', { property: 'volume', expected: BRACKET_VOLUME, rel_tol: 0.001 });
    expect(v).toMatchObject({ passed: false, measured: { terminated: false, entities: 462 } });
    expect(v.reason).toMatch(
      /no END-ISO-10303-21; at the end — it stops .*after entity #462 \(462 entities read; \d+ entities referred to are missing; the DATA section is not closed by ENDSEC;\)/,
    );
    expect(v.reason).not.toMatch(/OCCT/);
  });
  it('a STEP missing one entity names the dangling reference', async () => {
    const v = await step('removed-entity.step', { property: 'valid' });
    expect(v).toMatchObject({ passed: false, measured: { terminated: true, dangling: 1 } });
    expect(v.reason).toMatch(
      new RegExp(
        `dangling references: 1 entity is referred to but never defined \\(#${removedPoint}, used by #\\d+ AXIS2_PLACEMENT_3D\\)`,
      ),
    );
  });
  it('a STEP without its END-ISO-10303-21; or its last ENDSEC; is unterminated', async () => {
    expect((await step('no-end.step', { property: 'valid' })).reason).toMatch(
      /truncated STEP file: no END-ISO-10303-21; at the end — it stops at the end of a statement, after entity #\d+ \(\d+ entities read\)/,
    );
    expect((await step('no-endsec.step', { property: 'valid' })).reason).toMatch(
      /unterminated STEP file: the DATA section is not closed by ENDSEC;/,
    );
  });
  it('stops at the parse time limit', async () => {
    // A copy with another hash, so the cache does not answer; the worker is cut off and restarted.
    const v = await step('block-copy.step', { property: 'valid', parse_timeout_sec: 0.001 });
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(/timed out after 1 ms/);
    expect((await step('block.step', { property: 'valid' })).passed).toBe(true);
  });
});

describe('fcstd.document on the FreeCAD document', () => {
  it('lists objects by type and label', async () => {
    const v = await check('fcstd.document', 'bracket.FCStd', {
      check: 'objects',
      expected: [
        { type: 'Part::Feature', label: 'Bracket' },
        { type: 'Part::Box', min: 1, max: 1 },
        { label: '/^Spa/' },
      ],
    });
    expect(v.passed, v.reason).toBe(true);
    const none = await check('fcstd.document', 'bracket.FCStd', {
      check: 'objects',
      expected: [{ type: 'Part::Cut' }],
    });
    expect(none.reason).toMatch(/0 Part::Cut \(expected ≥ 1\)/);
  });
  it('measures the stored shape of an object with OCCT', async () => {
    const v = await check('fcstd.document', 'bracket.FCStd', {
      check: 'shape',
      object: 'Bracket',
      property: 'volume',
      expected: BRACKET_VOLUME,
      rel_tol: 1e-9,
    });
    expect(v.passed, v.reason).toBe(true);
    const box = await check('fcstd.document', 'bracket.FCStd', {
      check: 'shape',
      object: 'Spare',
      property: 'bbox',
      expected: [10, 10, 10],
    });
    expect(box.passed, box.reason).toBe(true);
    const h = await check('fcstd.document', 'bracket.FCStd', {
      check: 'shape',
      object: 'Bracket',
      property: 'holes',
      expected: BRACKET_HOLES,
    });
    expect(h.passed, h.reason).toBe(true);
  });
  it('judges the shape FreeCAD recomputes, which agrees with the stored one', async () => {
    // Spare is a parametric Part::Box: FreeCAD rebuilds it from Length, Width and Height.
    const v = await check('fcstd.document', 'bracket.FCStd', {
      check: 'shape',
      object: 'Spare',
      property: 'volume',
      expected: 1000,
      abs_tol: 1e-6,
    });
    expect(v.passed, v.reason).toBe(true);
    const stored = await check('fcstd.document', 'bracket.FCStd', {
      check: 'shape',
      object: 'Spare',
      property: 'volume',
      expected: 1000,
      abs_tol: 1e-6,
      recompute: false,
    });
    expect(stored.passed, stored.reason).toBe(true);
  });
  it('a property that states a wrong volume is not evidence: the geometry passes', async () => {
    const v = await check('fcstd.document', 'wrong-claim.FCStd', {
      check: 'shape',
      object: 'Bracket',
      property: 'volume',
      expected: BRACKET_VOLUME,
      rel_tol: 1e-9,
    });
    expect(v.passed, v.reason).toBe(true);
  });
  it('fails an unknown object, a truncated zip and a non-zip', async () => {
    const v = await check('fcstd.document', 'bracket.FCStd', {
      check: 'shape',
      object: 'Nope',
      property: 'valid',
    });
    expect(v.reason).toMatch(/no object labelled or named "Nope" stores a shape/);
    expect(
      (
        await check('fcstd.document', 'truncated.FCStd', {
          check: 'objects',
          expected: [{ label: 'Bracket' }],
        })
      ).reason,
    ).toMatch(/corrupt FCStd zip/);
    expect(
      (
        await check('fcstd.document', 'not-a-zip.FCStd', {
          check: 'objects',
          expected: [{ label: 'Bracket' }],
        })
      ).reason,
    ).toMatch(/not an FCStd file/);
  });
});

describe('hole matching', () => {
  it('merges a hole split into two half-cylinders and tells holes from bosses', () => {
    const half = {
      radius: 3,
      axisPoint: [1, 2, 0] as [number, number, number],
      axis: [0, 0, 1] as [number, number, number],
      area: 1,
    };
    const holes = holesOf([
      { ...half, hole: true },
      { ...half, hole: true },
      { ...half, radius: 5, hole: false },
    ]);
    expect(holes).toEqual([{ diameter: 6, axisPoint: [1, 2, 0], axis: [0, 0, 1], faces: 2 }]);
    const m = matchHoles(holes, [{ at: [1, 2, 50], axis: [0, 0, -1], diameter: 6 }], {
      position: 0.01,
      diameter: 0.01,
      angleDeg: 0.5,
    });
    expect(m.missing).toEqual([]);
  });
});
