/**
 * `stl.geometry` and the STL reader on artifacts made by the real OpenSCAD (ASCII and binary STL),
 * and on defective files derived from them (truncated, corrupt, open, empty, not an STL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { parseStl, sniffStl } from '../../verifiers/cad/stl-parse.js';
import { weld } from '../../verifiers/cad/weld.js';
import {
  isArtifactInvalid,
  isVerifierTimeout,
  verifyCriterion,
  type Verdict,
} from '../../verifiers/index.js';
import { contextFor, makeWithTool, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const PLATE = `$fn = 64;
difference() {
  cube([80, 50, 6]);
  for (x = [10, 70], y = [10, 40]) translate([x, y, -1]) cylinder(d = 6, h = 8);
}`;
/** 80·50·6 − 4·6·(½·64·9·sin(2π/64)) */
const PLATE_VOLUME = 24000 - 24 * 0.5 * 64 * 9 * Math.sin((2 * Math.PI) / 64);
const BLOCK = `difference() { cube(20, center = true); cylinder(d = 8, h = 30, center = true, $fn = 48); }`;
const BLOCK_VOLUME = 8000 - 20 * 0.5 * 48 * 16 * Math.sin((2 * Math.PI) / 48);
/** Two cubes that share only an edge: CGAL exports it, but it is not a 2-manifold. */
const EDGE_TOUCH = `cube(10); translate([10, 10, 0]) cube(10);`;
const TWO_PARTS = `cube(10); translate([20, 0, 0]) cube(10);`;

const kit = toolKit('verifiers-stl');
let dir: { path: string } & AsyncDisposable;
const files: Record<string, Buffer> = {};

beforeAll(async () => {
  dir = await tempDir('stl');
  const scad = (src: string, out: string, fmt = '') =>
    makeWithTool(kit.runTool, `openscad ${fmt} -o ${out} part.scad`, { 'part.scad': src }, out);
  files['plate.stl'] = await scad(PLATE, 'plate.stl');
  files['plate-bin.stl'] = await scad(PLATE, 'plate-bin.stl', '--export-format binstl');
  files['block.stl'] = await scad(BLOCK, 'block.stl', '--export-format binstl');
  files['edge.stl'] = await scad(EDGE_TOUCH, 'edge.stl');
  files['two.stl'] = await scad(TWO_PARTS, 'two.stl', '--export-format binstl');
  // A cube with a closed cavity: its inner shell is inside out, as a cavity's must be.
  files['hollow.stl'] = await scad(
    'difference() { cube(20, center = true); cube(10, center = true); }',
    'hollow.stl',
    '--export-format binstl',
  );
  // Two cubes exported apart and put in one file: the shells overlap by 5·10·10.
  const a = await scad('cube(10);', 'a.stl', '--export-format binstl');
  const b = await scad('translate([5, 0, 0]) cube(10);', 'b.stl', '--export-format binstl');
  const both = Buffer.concat([a, b.subarray(84)]);
  both.writeUInt32LE(a.readUInt32LE(80) + b.readUInt32LE(80), 80);
  files['overlapping.stl'] = both;
  const bin = files['plate-bin.stl'];
  files['truncated.stl'] = bin.subarray(0, bin.length - 1234);
  files['truncated-ascii.stl'] = files['plate.stl'].subarray(0, 50_000);
  const open = Buffer.from(bin.subarray(0, bin.length - 50 * 10));
  open.writeUInt32LE(bin.readUInt32LE(80) - 10, 80);
  files['open.stl'] = open; // ten triangles removed, header fixed: a valid file with a hole in the mesh
  const garbage = Buffer.alloc(5000);
  for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 251;
  files['garbage.stl'] = garbage;
  files['text.stl'] = Buffer.from('this is not a mesh\n');
  files['empty-solid.stl'] = Buffer.from('solid empty\nendsolid empty\n');
  files['empty.stl'] = Buffer.alloc(0);
  const nan = Buffer.from(bin);
  nan.writeFloatLE(NaN, 84 + 12);
  files['nan.stl'] = nan;
  await writeFiles(dir.path, files);
});

afterAll(async () => {
  await dir?.[asyncDispose]();
  await kit[asyncDispose]();
});

function check(deliverable: string, params: Record<string, unknown>): Promise<Verdict> {
  return verifyCriterion(contextFor(kit, dir.path), {
    id: 'c',
    verifier: 'stl.geometry',
    deliverable,
    role: 'check',
    params,
  });
}

describe('stl.geometry on the reference plate (ASCII, from OpenSCAD)', () => {
  it('is manifold', async () => {
    const v = await check('plate.stl', { property: 'manifold' });
    expect(v).toMatchObject({ passed: true, score: 1, measured: true, expected: true });
  });
  it('has the computed volume', async () => {
    const v = await check('plate.stl', { property: 'volume', expected: PLATE_VOLUME, rel_tol: 1e-4 });
    expect(v.passed).toBe(true);
    expect(v.measured as number).toBeCloseTo(PLATE_VOLUME, 1);
    expect(v.tolerance).toEqual({ rel: 1e-4 });
  });
  it('has the bounding box, genus 4 and one component', async () => {
    expect((await check('plate.stl', { property: 'bbox', expected: [80, 50, 6] })).passed).toBe(true);
    expect((await check('plate.stl', { property: 'genus', expected: 4 })).measured).toBe(4);
    expect((await check('plate.stl', { property: 'components', expected: 1 })).passed).toBe(true);
  });
  it('reads the binary export the same way', async () => {
    const v = await check('plate-bin.stl', { property: 'volume', expected: PLATE_VOLUME, abs_tol: 0.5 });
    expect(v.passed).toBe(true);
    expect((await check('plate-bin.stl', { property: 'genus', expected: 4 })).passed).toBe(true);
  });
});

describe('stl.geometry on an alternative valid part (binary block with one hole)', () => {
  it('passes its own volume, bbox and genus', async () => {
    expect(
      (await check('block.stl', { property: 'volume', expected: BLOCK_VOLUME, rel_tol: 1e-4 })).passed,
    ).toBe(true);
    expect((await check('block.stl', { property: 'bbox', expected: [20, 20, 20] })).passed).toBe(true);
    expect((await check('block.stl', { property: 'genus', expected: 1 })).passed).toBe(true);
  });
  it('counts two separate parts', async () => {
    const v = await check('two.stl', { property: 'components', expected: 2 });
    expect(v).toMatchObject({ passed: true, measured: 2 });
  });
  it('accepts a rotated bbox only with any_orientation', async () => {
    const params = { property: 'bbox', expected: [6, 80, 50] };
    expect((await check('plate.stl', params)).passed).toBe(false);
    expect((await check('plate.stl', { ...params, any_orientation: true })).passed).toBe(true);
  });
});

describe('stl.geometry volume goals and shells', () => {
  it('a closed cavity is material taken away: 20³ − 10³', async () => {
    const v = await check('hollow.stl', { property: 'volume', expected: 7000, rel_tol: 1e-6 });
    expect(v.passed, v.reason).toBe(true);
  });
  it('overlapping shells count the shared volume twice, and are named', async () => {
    const v = await check('overlapping.stl', { property: 'volume', expected: 2000, rel_tol: 0.01 });
    expect(v).toMatchObject({ passed: false, measured: { volume: 2000, overlap: 500 } });
    expect(v.reason).toMatch(
      /volume 2000 counts 500 twice: 2 shells overlap instead of being fused into one solid/,
    );
  });
  it('range, lower is better and a unit', async () => {
    const r = await check('plate.stl', {
      property: 'volume',
      range: { min: 23000, max: 23500 },
      unit: 'mm³',
    });
    expect(r.passed, r.reason).toBe(true);
    expect(r.reason).toMatch(/volume = 23322.5 mm³, required in \[23000, 23500\] mm³ → inside the range/);
    const l = await check('plate.stl', { property: 'volume', lower_is_better: { full: 20000, zero: 25000 } });
    expect(l.score).toBeCloseTo((25000 - PLATE_VOLUME) / 5000, 4);
    const none = await check('plate.stl', { property: 'volume', rel_tol: 0.01 });
    expect(none.reason).toMatch(/rel_tol and abs_tol need expected/);
  });
});

describe('stl.geometry fails wrong values for the intended reason', () => {
  it('wrong volume', async () => {
    const v = await check('plate.stl', { property: 'volume', expected: 24000, rel_tol: 0.005 });
    expect(v).toMatchObject({ passed: false, score: 0, expected: 24000 });
    expect(v.reason).toMatch(/outside tolerance/);
  });
  it('wrong bbox, genus and component count', async () => {
    const b = await check('plate.stl', { property: 'bbox', expected: [80, 60, 6], abs_tol: 0.05 });
    expect(b.reason).toMatch(/largest deviation 10/);
    expect((await check('plate.stl', { property: 'genus', expected: 3 })).passed).toBe(false);
    expect((await check('two.stl', { property: 'components', expected: 1 })).passed).toBe(false);
  });
});

describe('stl.geometry fails defective files with the reason, never a throw', () => {
  it.each([
    ['truncated.stl', /truncated binary STL: header declares 1052 triangles/],
    ['truncated-ascii.stl', /no "endsolid"/],
    ['garbage.stl', /not an STL/],
    ['text.stl', /not an STL/],
    ['empty-solid.stl', /has no facet/],
    ['nan.stl', /non-finite coordinate/],
    ['empty.stl', /deliverable empty.stl is empty/],
    ['missing.stl', /deliverable missing.stl is missing/],
  ])('%s', async (file, reason) => {
    const v = await check(file, { property: 'manifold' });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(reason);
  });
  it('an open mesh is not manifold, and its volume cannot be measured', async () => {
    const m = await check('open.stl', { property: 'manifold' });
    expect(m).toMatchObject({ passed: false, measured: false, expected: true });
    expect(m.reason).toMatch(/not a closed manifold mesh \(manifold-3d: NotManifold/);
    const v = await check('open.stl', { property: 'volume', expected: PLATE_VOLUME, rel_tol: 0.01 });
    expect(v.reason).toMatch(/cannot measure volume/);
  });
  it('two cubes touching along an edge: manifold-3d splits the shared edge into two parts', async () => {
    const v = await check('edge.stl', { property: 'components', expected: 1 });
    expect(v).toMatchObject({ passed: false, measured: 2 });
  });
});

describe('STL reader', () => {
  it('sniffs binary by its size and ASCII by solid/facet', () => {
    expect(sniffStl(files['plate-bin.stl']!)).toEqual({ kind: 'binary', triangles: 1052 });
    expect(sniffStl(files['plate.stl']!)).toEqual({ kind: 'ascii' });
    expect(sniffStl(Buffer.alloc(0)).kind).toBe('invalid');
  });
  it('parses ASCII and binary exports to the same triangles', () => {
    const a = parseStl(files['plate.stl']!);
    const b = parseStl(files['plate-bin.stl']!);
    expect(a.triangles).toBe(b.triangles);
    expect(weld(a, 'exact').vertProperties.length).toBe(weld(b, 'exact').vertProperties.length);
  });
  it('throws ArtifactInvalidError for a corrupt file', () => {
    try {
      parseStl(files['truncated.stl']!);
      expect.unreachable();
    } catch (err) {
      expect(isArtifactInvalid(err)).toBe(true);
    }
  });
  it('stops past its time limit (injected clock)', () => {
    let t = 0;
    const now = () => (t += 1000);
    try {
      parseStl(Buffer.concat([files['plate.stl']!, files['plate.stl']!.subarray(20)]), { limitMs: 500, now });
      expect.unreachable();
    } catch (err) {
      expect(isVerifierTimeout(err)).toBe(true);
    }
  });
  it('welds corners that differ below 1e-6 of the size only in quantized mode', () => {
    const soup = parseStl(files['plate-bin.stl']!);
    const nudged = { ...soup, positions: soup.positions.map((v, i) => (i % 9 === 0 ? v + 1e-5 : v)) };
    expect(weld(nudged, 'quantized').vertProperties.length).toBe(weld(soup, 'exact').vertProperties.length);
    expect(weld(nudged, 'exact').vertProperties.length).toBeGreaterThan(
      weld(soup, 'exact').vertProperties.length,
    );
  });
});
