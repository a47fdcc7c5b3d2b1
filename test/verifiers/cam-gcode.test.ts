/**
 * `gcode.check`: G-code sliced by the real PrusaSlicer and CuraEngine in a tool container from an
 * OpenSCAD part (test/fixtures/cam/part.scad), and hand-written CNC programs (pocket with arcs,
 * peck drilling, a crash); defective and corrupt files fail for the intended reason.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../actors/sandbox/index.js';
import { parseGcode } from '../../verifiers/cam/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';
import { CLI_IMAGE } from '../helpers/docker.js';

const FIX = path.resolve('test/fixtures/cam');
const kit = toolKit('verifiers-cam-gcode');
let dir: { path: string } & AsyncDisposable;

const PRUSA =
  'prusa-slicer --export-gcode --nozzle-diameter 0.4 --filament-diameter 1.75 --center 100,100 --first-layer-height 0.2';
beforeAll(async () => {
  dir = await tempDir('cam-gcode');
  const src = await tempDir('cam-gcode-src');
  try {
    await writeFiles(src.path, { 'part.scad': await readFile(path.join(FIX, 'part.scad')) });
    const r = await kit.runTool({
      image: CLI_IMAGE,
      command: [
        'openscad -o part.stl part.scad 2>/dev/null',
        `${PRUSA} --layer-height 0.2 --fill-density 15% -o prusa.gcode part.stl >/dev/null`,
        `${PRUSA} --layer-height 0.2 --fill-density 100% --fill-pattern rectilinear -o solid.gcode part.stl >/dev/null`,
        'CuraEngine slice -j /usr/share/cura/definitions/creality_ender3.def.json -s layer_height=0.15 -l part.stl -o cura.gcode 2>/dev/null',
      ].join(' && '),
      files: [{ hostPath: path.join(src.path, 'part.scad'), dest: 'part.scad' }],
      timeoutMs: 120_000,
      collect: ['prusa.gcode', 'solid.gcode', 'cura.gcode'],
    });
    if (r.files['cura.gcode'] === undefined) throw new Error(`slicing failed: ${r.stdout}${r.stderr}`);
    const prusa = r.files['prusa.gcode']!.toString();
    await writeFiles(dir.path, {
      ...r.files,
      'pocket.nc': await readFile(path.join(FIX, 'pocket.nc')),
      'crash.nc': await readFile(path.join(FIX, 'crash.nc')),
      'truncated.gcode': prusa.slice(0, Math.floor(prusa.length / 2)),
      'comments.gcode': '; only a comment\n; and another\n',
      'binary.gcode': Buffer.from([0x00, 0x47, 0x31, 0xff]),
      'empty.gcode': '',
    });
  } finally {
    await src[asyncDispose]();
  }
}, 180_000);
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

const check = (deliverable: string, params: Record<string, unknown>): Promise<Verdict> =>
  verifyCriterion(contextFor(kit, dir.path), {
    id: 'g',
    verifier: 'gcode.check',
    deliverable,
    role: 'check',
    params,
  });
const BOX = { min: [80, 85, 0.2], max: [120, 115, 12] };

describe('gcode.check on FDM G-code from PrusaSlicer and CuraEngine', () => {
  it('passes the PrusaSlicer reference: envelope, first layer, layer height, budget, header', async () => {
    for (const p of [
      { check: 'envelope', expected: BOX, center: [100, 100], abs_tol: 0.5 },
      { check: 'min_z', target: 0.2, abs_tol: 0.02 },
      { check: 'layer_height', expected: 0.2, first_layer: 0.2 },
      { check: 'extruded_volume', range: { max: 7000 }, part_volume: 13045 },
      { check: 'header', rel_tol: 0.02, max_time_sec: 7200 },
      { check: 'feeds', range: { min: 100, max: 10000 } },
    ]) {
      const v = await check('prusa.gcode', p);
      expect(v, `${p.check}: ${v.reason}`).toMatchObject({ passed: true, score: 1 });
    }
  });
  it('passes CuraEngine output (a different slicer): 0.3 mm first layer, 0.15 mm layers, part size', async () => {
    const l = await check('cura.gcode', { check: 'layer_height', expected: 0.15, first_layer: 0.3 });
    expect(l, l.reason).toMatchObject({ passed: true });
    const e = await check('cura.gcode', { check: 'envelope', size: [40, 30, 11.7], abs_tol: 0.6 });
    expect(e, e.reason).toMatchObject({ passed: true });
    // CuraEngine alone leaves "Filament used: 0m" in its header: the cross-check says so
    expect((await check('cura.gcode', { check: 'header' })).reason).toMatch(
      /no usable "filament used" comment/,
    );
  });
  it('fails solid infill on the budget and a wrong layer height with the numbers', async () => {
    const b = await check('solid.gcode', { check: 'extruded_volume', range: { max: 7000 } });
    expect(b).toMatchObject({ passed: false });
    expect(b.measured as number).toBeGreaterThan(9000);
    const l = await check('prusa.gcode', { check: 'layer_height', expected: 0.3 });
    expect(l.reason).toMatch(/typical height 0\.2 mm vs 0\.3 ± 0\.01.*wrong layer height/);
    const t = await check('prusa.gcode', { check: 'extruded_volume', target: 5300 });
    expect(t.score).toBeGreaterThan(0.9);
  });
  it('fails a truncated print on its envelope and header, and unreadable files', async () => {
    expect(await check('truncated.gcode', { check: 'envelope', expected: BOX, abs_tol: 0.5 })).toMatchObject({
      passed: false,
    });
    expect((await check('truncated.gcode', { check: 'header' })).reason).toMatch(/no usable "filament used"/);
    expect((await check('comments.gcode', { check: 'min_z', target: 0 })).reason).toMatch(
      /no G-code commands/,
    );
    expect((await check('binary.gcode', { check: 'min_z', target: 0 })).reason).toMatch(/binary content/);
    expect((await check('empty.gcode', { check: 'min_z', target: 0 })).reason).toMatch(/is empty/);
  });
});

describe('gcode.check on CNC programs', () => {
  it('follows arcs, tool changes and a peck-drilling cycle', async () => {
    const env = await check('pocket.nc', {
      check: 'envelope',
      mode: 'cnc',
      within: { min: [13, 13, -6], max: [40, 30, 1] },
      abs_tol: 0.01,
    });
    expect(env, env.reason).toMatchObject({ passed: true });
    // the G2 arc from (17, 13) around (17, 15) reaches x = 19
    expect((env.measured as { max: number[] }).max[0]).toBeCloseTo(40, 5);
    const arc = parseGcode('G1 X17 Y13 F100\nG2 X19 Y15 I0 J2\n', 1000).moves;
    expect(Math.max(...arc.map((m) => m.to[0]))).toBeCloseTo(19, 6);
    expect(await check('pocket.nc', { check: 'tool_changes', tools: [1, 2] })).toMatchObject({
      passed: true,
    });
    const h = await check('pocket.nc', {
      check: 'holes',
      positions: [
        [30, 30],
        [40, 30],
        [15, 15],
      ],
      depth: -6,
    });
    expect(h.reason).toMatch(/3 hole\(s\) drilled/);
    const holes = await check('pocket.nc', {
      check: 'holes',
      positions: [
        [30, 30],
        [40, 30],
      ],
      stock_top: -100,
    });
    expect(holes, holes.reason).toMatchObject({ passed: true });
    expect(await check('pocket.nc', { check: 'rapids', stock_top: 0 })).toMatchObject({ passed: true });
  });
  it('fails a rapid into the stock, a zero feed and reads inches', async () => {
    const r = await check('crash.nc', { check: 'rapids', mode: 'cnc', stock_top: 0 });
    expect(r).toMatchObject({ passed: false });
    expect(r.reason).toMatch(/1 G0 rapid\(s\) go below the stock top Z 0, down to Z -2\.54 \(lines 6\)/);
    const f = await check('crash.nc', { check: 'feeds', mode: 'cnc', range: { min: 10, max: 1000 } });
    expect(f.reason).toMatch(/1 move\(s\) outside .*F0/);
    expect(await check('crash.nc', { check: 'tool_changes', count: 2 })).toMatchObject({
      passed: false,
      measured: [1],
    });
  });
});
