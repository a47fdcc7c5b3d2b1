/**
 * Red team of the CAD and drafting verifiers: each artifact is made by the real app (OpenSCAD,
 * FreeCAD, ezdxf) and then, where a forger would, edited by hand, so that it tries to pass while
 * being the wrong part. Each must fail with a reason that names the attempt.
 */
import path from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { stopOcct } from '../../verifiers/cad/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, makeWithTool, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

/** The right plate of tasks/starter/openscad-plate: 23322.51 mm³ with $fn = 64. */
const PLATE_VOLUME = 23322.51;
/** The right bracket of tasks/starter/cad-freecad-bracket. */
const BRACKET_VOLUME = 18183.186;

const BRACKETS_PY = `
import FreeCAD as App, Part, Import
V = App.Vector
def bracket(base):
    s = Part.makeBox(60, 40, base).fuse(Part.makeBox(5, 40, 40)).removeSplitter()
    for x, y in [(20, 10), (45, 10), (20, 30), (45, 30)]:
        s = s.cut(Part.makeCylinder(3, 15, V(x, y, -5)))
    return s.cut(Part.makeCylinder(4, 15, V(-5, 20, 25), V(1, 0, 0)))
right, thick = bracket(5), bracket(6)
right.exportBrep("/workspace/right.brep")

# A STEP of the 6 mm bracket whose PRODUCT name (FreeCAD writes the label) claims the volume.
doc = App.newDocument("Claims")
f = doc.addObject("Part::Feature", "Bracket")
f.Shape = thick
f.Label = "Bracket volume ${BRACKET_VOLUME} mm3"
doc.recompute()
Import.export([f], "/workspace/thick.step")

# A document of the 6 mm bracket that says, in its description and a property, it has the volume.
f.Label = "Bracket"
f.Label2 = "volume ${BRACKET_VOLUME} mm3"
f.addProperty("App::PropertyFloat", "Volume", "Report", "volume in mm3")
f.Volume = ${BRACKET_VOLUME}
doc.Comment = "bracket, volume ${BRACKET_VOLUME} mm3"
doc.saveAs("/workspace/claims.FCStd")

# A document whose only object is a 60 x 40 x 5 box (its stored BREP is swapped below).
box = App.newDocument("Box")
b = box.addObject("Part::Box", "Bracket")
b.Length, b.Width, b.Height = 60, 40, 5
box.recompute()
box.saveAs("/workspace/box.FCStd")
`;

const drawing = (o: { extents?: string; dims: string }): string => `
import ezdxf
doc = ezdxf.new("R2010", setup=True)
doc.layers.add("OUTLINE", color=7)
doc.layers.add("DIMENSIONS", color=3)
msp = doc.modelspace()
msp.add_lwpolyline([(0, 0), (120, 0), (120, 90), (0, 90)], close=True, dxfattribs={"layer": "OUTLINE"})
${o.extents ?? ''}
d = {"layer": "DIMENSIONS"}
${o.dims}
doc.saveas("out.dxf")
`;

const flange = (holes: boolean): string => `$fn = 96;
difference() {
  union() { cylinder(d = 80, h = 10); cylinder(d = 40, h = 30); }
  translate([0, 0, -1]) cylinder(d = 20, h = 40);
  ${holes ? 'for (a = [0:60:300]) rotate([0, 0, a]) translate([30, 0, -1]) cylinder(d = 8, h = 12);' : ''}
}`;

const kit = toolKit('verifiers-red-team-cad');
let art: { path: string } & AsyncDisposable;
let task: { path: string } & AsyncDisposable;

/** A binary STL's triangles as 50-byte records. */
const records = (stl: Buffer): Buffer[] =>
  Array.from({ length: stl.readUInt32LE(80) }, (_, i) => stl.subarray(84 + 50 * i, 134 + 50 * i));

/** One binary STL of all the records, with an 80-byte header saying `header`. */
function binaryStl(recs: readonly Buffer[], header = 'engiloop red team'): Buffer {
  const head = Buffer.alloc(84);
  head.write(header.slice(0, 80), 'latin1');
  head.writeUInt32LE(recs.length, 80);
  return Buffer.concat([head, ...recs]);
}

/** The records turned inside out (two corners swapped) and moved by `d`. */
function invertedAndMoved(recs: readonly Buffer[], d: [number, number, number]): Buffer[] {
  return recs.map((r) => {
    const o = Buffer.from(r);
    const corner = (k: number): number[] => [0, 1, 2].map((j) => r.readFloatLE(12 + 12 * k + 4 * j));
    const [a, b, c] = [corner(0), corner(1), corner(2)];
    [a, c, b].forEach((p, k) => p.forEach((x, j) => o.writeFloatLE(x + d[j]!, 12 + 12 * k + 4 * j)));
    return o;
  });
}

beforeAll(async () => {
  art = await tempDir('red-cad-art');
  task = await tempDir('red-cad-task');
  const scad = (src: string, out: string, fmt = '--export-format binstl') =>
    makeWithTool(kit.runTool, `openscad ${fmt} -o ${out} part.scad`, { 'part.scad': src }, out);
  const dxf = (src: string) => makeWithTool(kit.runTool, 'python3 make.py', { 'make.py': src }, 'out.dxf');

  // STL: a plate with no holes (24000 mm³) that says in its header it has the right volume.
  const solidPlate = await scad('cube([80, 50, 6]);', 'solid.stl');
  const header = `volume ${PLATE_VOLUME} mm3, genus 4, one piece`;
  const claimed = Buffer.from(solidPlate);
  claimed.fill(0, 0, 80).write(header, 'latin1');
  // STL: the same plate with a detached, inside-out cube of the holes' volume below it.
  const side = Math.cbrt(24000 - PLATE_VOLUME);
  const cube = await scad(`cube(${side});`, 'cube.stl');
  const paidBack = binaryStl([...records(solidPlate), ...invertedAndMoved(records(cube), [30, 20, -20])]);
  // ASCII STL: a plate 10 mm too wide whose solid name claims the volume.
  const wide = await scad(
    '$fn = 64; difference() { cube([90, 50, 6]); for (x = [10, 80], y = [10, 40]) translate([x, y, -1]) cylinder(d = 6, h = 8); }',
    'wide.stl',
    '',
  );
  const wideNamed = Buffer.from(
    wide
      .toString('latin1')
      .replace(/^solid \S+/, `solid volume=${PLATE_VOLUME}`)
      .replace(/endsolid \S+/, `endsolid volume=${PLATE_VOLUME}`),
    'latin1',
  );

  // Similarity: the flange without its bolt holes (IoU 0.954), plus a second, overlapping copy of
  // its hub, or plus a detached inside-out block; both inflate the IoU computed from the mesh.
  await writeFiles(task.path, { 'hidden/reference.stl': await scad(flange(true), 'ref.stl') });
  const noHoles = records(await scad(flange(false), 'no-holes.stl'));
  const hub = records(
    await scad(
      '$fn = 96; difference() { cylinder(d = 40, h = 30); translate([0, 0, -1]) cylinder(d = 20, h = 32); }',
      'hub.stl',
    ),
  );
  const block = records(await scad('cube([20, 20, 20]);', 'block.stl'));

  // FreeCAD: the STEP, the documents and the right bracket's BREP.
  const fc = await tempDir('red-cad-fc');
  await writeFiles(fc.path, { 'make.py': BRACKETS_PY });
  const outs = ['right.brep', 'thick.step', 'claims.FCStd', 'box.FCStd'];
  const r = await kit.runTool({
    image: 'engiloop/freecad:latest',
    command: 'freecadcmd make.py',
    files: [{ hostPath: path.join(fc.path, 'make.py'), dest: 'make.py' }],
    timeoutMs: 120_000,
    collect: outs,
  });
  await fc[asyncDispose]();
  for (const o of outs)
    if (r.files[o] === undefined) throw new Error(`FreeCAD made no ${o}: ${r.stderr}${r.stdout}`);
  // The forger's edits: the header and a comment of the STEP claim the volume too…
  const thick = r.files['thick.step']!.toString('latin1')
    .replace(
      "FILE_DESCRIPTION(('FreeCAD Model')",
      `FILE_DESCRIPTION(('bracket, volume ${BRACKET_VOLUME} mm3')`,
    )
    .replace('DATA;', `/* volume = ${BRACKET_VOLUME} mm3, checked */\nDATA;`);
  // …and the box document gets the right bracket's BREP as its stored shape.
  const zip = await JSZip.loadAsync(r.files['box.FCStd']!);
  const xml = await zip.file('Document.xml')!.async('string');
  const stored = /<Part\s+file="([^"]+)"/.exec(xml)![1]!;
  zip.file(stored, r.files['right.brep']!);
  const swapped = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });

  await writeFiles(art.path, {
    'claimed.stl': claimed,
    'paid-back.stl': paidBack,
    'wide-named.stl': wideNamed,
    'doubled-hub.stl': binaryStl([...noHoles, ...hub]),
    'with-inverted-block.stl': binaryStl([...noHoles, ...invertedAndMoved(block, [60, 60, 0])]),
    'thick.step': Buffer.from(thick, 'latin1'),
    'claims.FCStd': r.files['claims.FCStd']!,
    'swapped.FCStd': swapped,
    // DXF: a plate drawn 90 tall whose header says its extents are 120 × 80…
    'extents.dxf': await dxf(
      drawing({
        // ezdxf writes $EXTMIN/$EXTMAX from the modelspace's stored extents.
        extents: 'msp.dxf.extmin = (0, 0, 0)\nmsp.dxf.extmax = (120, 80, 0)',
        dims: 'msp.add_linear_dim(base=(60, -15), p1=(0, 0), p2=(120, 0), dxfattribs=d).render()',
      }),
    ),
    // …and one whose height dimension measures 90 but is written "80", stored measurement too.
    'dim-text.dxf': await dxf(
      drawing({
        dims: `msp.add_linear_dim(base=(60, -15), p1=(0, 0), p2=(120, 0), dxfattribs=d).render()
dim = msp.add_linear_dim(base=(135, 45), p1=(120, 0), p2=(120, 90), angle=90, text="80", dxfattribs=d)
dim.render()
dim.dimension.dxf.actual_measurement = 80`,
      }),
    ),
  });
}, 300_000);

afterAll(async () => {
  await art?.[asyncDispose]();
  await task?.[asyncDispose]();
  await kit[asyncDispose]();
  await stopOcct();
});

function verify(verifier: string, deliverable: string, params: Record<string, unknown>): Promise<Verdict> {
  return verifyCriterion(contextFor(kit, art.path, task.path), {
    id: 'c',
    verifier,
    deliverable,
    role: 'check',
    params,
  });
}
const plateVolume = { property: 'volume', expected: PLATE_VOLUME, rel_tol: 0.005 };
const bracketVolume = { property: 'volume', expected: BRACKET_VOLUME, rel_tol: 0.001 };

describe('stl.geometry: the triangles are the evidence', () => {
  it('a plate without holes whose binary header claims the volume', async () => {
    const v = await verify('stl.geometry', 'claimed.stl', plateVolume);
    expect(v.passed).toBe(false);
    expect(v.measured).toBeCloseTo(24000, 3);
    expect(v.reason).toMatch(
      /volume 24000 vs expected 23322.5.*outside tolerance; the binary STL header claims "volume 23322.51 mm3, genus 4, one piece", but what a file says about itself is not evidence: volume was measured from the 12 triangles/,
    );
  });
  it('a plate 10 mm too wide whose ASCII solid name claims the volume', async () => {
    const v = await verify('stl.geometry', 'wide-named.stl', plateVolume);
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(/the ASCII STL solid name claims "volume=23322.51".*not evidence/);
  });
  it('a plate without holes paying the holes back with a detached inside-out cube', async () => {
    // The signed volume is the expected one: only the shells tell the trick.
    const v = await verify('stl.geometry', 'paid-back.stl', plateVolume);
    expect(v).toMatchObject({ passed: false, measured: { volume: expect.closeTo(PLATE_VOLUME, 0) } });
    expect(v.reason).toMatch(/is short by 677.49: 1 inside-out shell\(s\) enclose no material/);
  });
});

describe('shape.similarity: the IoU of one solid', () => {
  const sim = (f: string) => verify('shape.similarity', f, { min_iou: 0.97, align: 'none' });
  it('the flange without bolt holes, its hub doubled by an overlapping second shell', async () => {
    const v = await sim('doubled-hub.stl');
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /doubled-hub.stl: not one solid: 2 shells overlap by 28\d{3}(\.\d+)? \(counted twice\)/,
    );
  });
  it('the flange without bolt holes and a detached inside-out block', async () => {
    const v = await sim('with-inverted-block.stl');
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(/not a solid: 1 inside-out shell\(s\) \(volume −8000\) enclose no material/);
  });
});

describe('step.geometry: the B-rep is the evidence', () => {
  it('a bracket 1 mm too thick whose PRODUCT name, FILE_DESCRIPTION and a comment claim the volume', async () => {
    const v = await verify('step.geometry', 'thick.step', bracketVolume);
    expect(v.passed).toBe(false);
    expect(v.measured).toBeCloseTo(20270.089, 2);
    expect(v.reason).toMatch(
      /^volume 20270.1 vs expected 18183.2.*outside tolerance; FILE_DESCRIPTION claims/,
    );
    expect(v.reason).toMatch(/a comment claims "volume = 18183.186 mm3, checked"/);
    expect(v.reason).toMatch(/PRODUCT #7 claims "Bracket volume 18183.186 mm3"/);
    expect(v.reason).toMatch(/not evidence: volume was measured from the exact B-rep geometry/);
  });
});

describe('fcstd.document: the shape FreeCAD computes is the evidence', () => {
  const shape = (f: string) =>
    verify('fcstd.document', f, { check: 'shape', object: 'Bracket', ...bracketVolume });
  it('a 6 mm bracket whose Document.xml (description, a Volume property, the comment) claims the volume', async () => {
    const v = await shape('claims.FCStd');
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /Document.xml Bracket.Label2 claims "Label2 = volume 18183.186 mm3" and Document.xml Bracket.Volume claims "Volume = 18183.186".*not evidence/,
    );
  });
  it('a 60 × 40 × 5 box whose stored BREP was swapped for the right bracket', async () => {
    const v = await shape('swapped.FCStd');
    expect(v.passed).toBe(false);
    expect(v.measured).toMatchObject({
      stored: { volume: expect.closeTo(BRACKET_VOLUME, 2) },
      recomputed: { volume: 12000 },
    });
    expect(v.reason).toMatch(
      /swapped.FCStd › Bracket: the stored shape is not what the document computes — FreeCAD's recompute of this Part::Box gives volume 12000 instead of the stored 18183.2.*the stored BREP was replaced or is stale/,
    );
  });
});

describe('dxf.drawing and drafting.score: the entities are the evidence', () => {
  it('a plate drawn 90 tall whose $EXTMIN/$EXTMAX claim 120 × 80', async () => {
    const v = await verify('dxf.drawing', 'extents.dxf', {
      check: 'extents',
      expected: [120, 80],
      min: [0, 0],
    });
    expect(v.passed).toBe(false);
    expect(v.measured).toMatchObject({ size: [120, 90], header_extents: { min: [0, 0], max: [120, 80] } });
    expect(v.reason).toMatch(
      /off by up to 10; the header's \$EXTMIN \[0, 0\] \/ \$EXTMAX \[120, 80\] claim the expected extents, but what a file says about itself is not evidence/,
    );
  });
  it('a height dimension that measures 90 written as "80" (text and stored measurement)', async () => {
    const v = await verify('dxf.drawing', 'dim-text.dxf', {
      check: 'dimensions',
      expected: [{ value: 120 }, { value: 80 }],
    });
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /dimension 80 \(a dimension's text is overridden to "80" but its definition points measure 90: the text is not evidence\)/,
    );
    const s = await verify('drafting.score', 'dim-text.dxf', {
      spec: {
        geometry: [{ line: { from: [0, 0], to: [120, 0] } }],
        dimensions: [{ value: 120 }, { value: 80 }],
      },
    });
    expect(s.measured).toMatchObject({ dimensions: 0.5 });
    expect(s.reason).toMatch(/text is overridden to "80" but its definition points measure 90/);
  });
});
