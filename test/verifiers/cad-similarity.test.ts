/**
 * `shape.similarity` on solids made by the real apps: an OpenSCAD flange as the reference (STL),
 * the same flange moved, re-faceted and rotated, made in FreeCAD (STEP), and defective ones (a
 * missing feature, a wrong proportion, a corrupt file). Also the alignment maths on its own.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { massMoments, principalAxes } from '../../verifiers/cad/align.js';
import { stopOcct } from '../../verifiers/cad/index.js';
import { parseStl } from '../../verifiers/cad/stl-parse.js';
import { weld } from '../../verifiers/cad/weld.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, makeWithTool, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const flange = (opts: { fn?: number; hub?: number; holes?: boolean; pre?: string } = {}): string => `
$fn = ${opts.fn ?? 96};
${opts.pre ?? ''} difference() {
  union() { cylinder(d = 80, h = 10); cylinder(d = 40, h = ${opts.hub ?? 30}); }
  translate([0, 0, -1]) cylinder(d = 20, h = 40);
  ${opts.holes === false ? '' : 'for (a = [0:60:300]) rotate([0, 0, a]) translate([30, 0, -1]) cylinder(d = 8, h = 12);'}
}`;
/** A block with a closed cavity: two shells, the inner one inside out, as a cavity's must be. */
const HOLLOW = 'difference() { cube([30, 20, 10]); translate([5, 5, 2]) cube([20, 10, 6]); }';
/** An asymmetric block (three distinct principal moments) with an off-centre hole. */
const BLOCK =
  'difference() { cube([40, 20, 10]); translate([10, 10, -1]) cylinder(d = 8, h = 12, $fn = 48); }';
const FREECAD_FLANGE = `
import FreeCAD as App, Part
V = App.Vector
s = Part.makeCylinder(40, 10).fuse(Part.makeCylinder(20, 30)).cut(Part.makeCylinder(10, 40, V(0, 0, -5)))
for i in range(6):
    import math
    a = math.radians(60 * i)
    s = s.cut(Part.makeCylinder(4, 20, V(30 * math.cos(a), 30 * math.sin(a), -5)))
s.translate(V(5, 5, 5))
s.exportStep("/workspace/flange.step")
`;

const kit = toolKit('verifiers-cad-similarity');
let task: { path: string } & AsyncDisposable;
let art: { path: string } & AsyncDisposable;

beforeAll(async () => {
  task = await tempDir('sim-task');
  art = await tempDir('sim-art');
  const scad = (src: string, out: string) =>
    makeWithTool(kit.runTool, `openscad -o ${out} part.scad`, { 'part.scad': src }, out);
  await writeFiles(task.path, { 'hidden/reference.stl': await scad(flange(), 'ref.stl') });
  await writeFiles(art.path, {
    'same.stl': await scad(flange(), 'same.stl'),
    'moved.stl': await scad(flange({ fn: 40, pre: 'translate([100, -20, 3])' }), 'moved.stl'),
    'tipped.stl': await scad(flange({ pre: 'translate([10, 0, 0]) rotate([90, 0, 0])' }), 'tipped.stl'),
    'block.stl': await scad(BLOCK, 'block.stl'),
    'block-tipped.stl': await scad(`translate([7, 8, 9]) rotate([90, 0, 90]) ${BLOCK}`, 'block-tipped.stl'),
    'no-holes.stl': await scad(flange({ holes: false }), 'no-holes.stl'),
    'tall-hub.stl': await scad(flange({ hub: 35 }), 'tall-hub.stl'),
    'garbage.stl': Buffer.from('solid x\nfacet normal 0 0 1\n'),
    'hollow.stl': await scad(HOLLOW, 'hollow.stl'),
  });
  await writeFiles(task.path, { 'hollow.stl': await scad(HOLLOW, 'hollow-ref.stl') });
  const fc = await tempDir('fc');
  await writeFiles(fc.path, { 'make.py': FREECAD_FLANGE });
  const r = await kit.runTool({
    image: 'engiloop/freecad:latest',
    command: 'freecadcmd make.py',
    files: [{ hostPath: path.join(fc.path, 'make.py'), dest: 'make.py' }],
    timeoutMs: 120_000,
    collect: ['flange.step'],
  });
  await fc[asyncDispose]();
  if (r.files['flange.step'] === undefined) throw new Error(`FreeCAD made no STEP: ${r.stderr}${r.stdout}`);
  await writeFiles(art.path, { 'flange.step': r.files['flange.step'] });
}, 300_000);

afterAll(async () => {
  await task?.[asyncDispose]();
  await art?.[asyncDispose]();
  await kit[asyncDispose]();
  await stopOcct();
});

function similarity(deliverable: string, params: Record<string, unknown> = {}): Promise<Verdict> {
  return verifyCriterion(contextFor(kit, art.path, task.path), {
    id: 'c',
    verifier: 'shape.similarity',
    deliverable,
    role: 'check',
    params: { min_iou: 0.97, ...params },
  });
}
const iou = (v: Verdict): number => (v.measured as { iou: number }).iou;

describe('shape.similarity against the reference flange', () => {
  it('the same export has IoU 1', async () => {
    const v = await similarity('same.stl');
    expect(v.passed, v.reason).toBe(true);
    expect(iou(v)).toBeCloseTo(1, 6);
  });
  it('a moved, coarser export passes after centroid alignment, not without it', async () => {
    const v = await similarity('moved.stl');
    expect(v.passed, v.reason).toBe(true);
    expect(iou(v)).toBeGreaterThan(0.98);
    expect((v.measured as { translation: number[] }).translation[0]).toBeCloseTo(-100, 1);
    expect((await similarity('moved.stl', { align: 'none' })).passed).toBe(false);
  });
  it('a FreeCAD STEP of the same part (exact circles, meshed by OCCT) passes', async () => {
    const v = await similarity('flange.step');
    expect(v.passed, v.reason).toBe(true);
    expect(iou(v)).toBeGreaterThan(0.99);
  });
  it('a part turned on its side passes only with principal-axis alignment', async () => {
    const ref = { reference: 'block.stl' };
    await writeFiles(task.path, { 'block.stl': await readFile(path.join(art.path, 'block.stl')) });
    expect((await similarity('block-tipped.stl', ref)).passed).toBe(false);
    const v = await similarity('block-tipped.stl', { ...ref, align: 'principal' });
    expect(v.passed, v.reason).toBe(true);
    expect(iou(v)).toBeCloseTo(1, 5);
    expect((v.measured as { alignment: string }).alignment).toMatch(/principal/);
  });
  it('a part with a closed cavity is one solid: IoU 1 against itself', async () => {
    const v = await similarity('hollow.stl', { reference: 'hollow.stl' });
    expect(v.passed, v.reason).toBe(true);
    expect((v.measured as { volume: number }).volume).toBeCloseTo(6000 - 1200, 3);
  });
  it('known limit: a part with a symmetric cross-section (equal moments) is not turned back reliably', async () => {
    // The flange's two in-plane moments are equal, so its in-plane principal axes are arbitrary
    // and the bolt holes may land between the reference's: the IoU stays below 0.97.
    const v = await similarity('tipped.stl', { align: 'principal' });
    expect(iou(v)).toBeGreaterThan(0.9);
  });
});

describe('shape.similarity fails defective parts for the intended reason', () => {
  it('missing bolt holes: IoU ≈ 0.954', async () => {
    const v = await similarity('no-holes.stl');
    expect(v.passed).toBe(false);
    expect(iou(v)).toBeCloseTo(0.954, 2);
    expect(v.reason).toMatch(/below the required 0.97/);
  });
  it('a hub 5 mm too tall: IoU ≈ 0.93', async () => {
    expect(iou(await similarity('tall-hub.stl'))).toBeCloseTo(0.93, 2);
  });
  it('a corrupt file, a missing file and a missing reference', async () => {
    expect((await similarity('garbage.stl')).reason).toMatch(/garbage.stl: /);
    expect((await similarity('nope.stl')).reason).toMatch(/deliverable nope.stl is missing/);
    expect((await similarity('same.stl', { reference: 'hidden/none.step' })).reason).toMatch(
      /no reference solid/,
    );
  });
});

describe('alignment maths', () => {
  it('moments of a box: volume, centroid, covariance and axes', async () => {
    const box = await makeWithTool(
      kit.runTool,
      'openscad -o b.stl b.scad',
      { 'b.scad': 'translate([1, 2, 3]) cube([10, 4, 2]);' },
      'b.stl',
    );
    const m = massMoments(weld(parseStl(box), 'exact'));
    expect(m.volume).toBeCloseTo(80, 6);
    expect(m.centroid.map((x) => Number(x.toFixed(6)))).toEqual([6, 4, 4]);
    // Variance of a uniform segment of length L is L²/12.
    expect(m.covariance[0][0]).toBeCloseTo(100 / 12, 6);
    const { values, axes } = principalAxes(m.covariance);
    expect(values[0]).toBeCloseTo(100 / 12, 6);
    expect(Math.abs(axes[0][0])).toBeCloseTo(1, 6);
  });
});
