/**
 * `gcode.check`: G-code sliced by the real PrusaSlicer and CuraEngine in a tool container from
 * OpenSCAD parts (test/fixtures/cam), the cam-cnc-pocket task's own generator, and hand-written CNC
 * programs (pocket with arcs, peck drilling, a crash); defective and corrupt files fail for the
 * intended reason. Completeness, per-tool and per-axis checks are shown on real sliced files and on
 * the defects a broken copy or post-processor makes of them (test/fixtures/cam/make-gcode.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { parseGcode } from '../../verifiers/cam/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';
import { cutLayers, dropLines, pocketProgram, slice, stripExtrusion } from '../fixtures/cam/make-gcode.js';

const FIX = path.resolve('test/fixtures/cam');

/** About half-way through `s`, never just after a line break (the slicer's header time moves it). */
function midLine(s: string): number {
  let at = Math.floor(s.length / 2);
  while (s[at - 1] === '\n' || s[at - 1] === '\r') at++;
  return at;
}
const kit = toolKit('verifiers-cam-gcode');
let dir: { path: string } & AsyncDisposable;

beforeAll(async () => {
  dir = await tempDir('cam-gcode');
  const g = await slice(kit, ['prusa.gcode', 'solid.gcode', 'thick.gcode', 'multi.gcode', 'cura.gcode']);
  const pocket = await pocketProgram(kit);
  const fixturePocket = await readFile(path.join(FIX, 'pocket.nc'), 'latin1');
  await writeFiles(dir.path, {
    ...g,
    'pocket.nc': fixturePocket,
    'crash.nc': await readFile(path.join(FIX, 'crash.nc')),
    'task-pocket.nc': pocket,
    // a copy cut off half-way, mid-line
    'truncated.gcode': g['prusa.gcode'].slice(0, midLine(g['prusa.gcode'])),
    // a CuraEngine file cut at a line break before its end
    'cura-half.gcode': g['cura.gcode'].slice(
      0,
      g['cura.gcode'].lastIndexOf('\n', g['cura.gcode'].length / 2) + 1,
    ),
    // the end G-code (hotend off, home X, motors off) left out
    'no-end.gcode': dropLines(g['prusa.gcode'], /^(M104 S0|G28 X0|M84)\b/),
    // a post-processor that dropped the E words from layer 21 on: the nozzle moves, nothing comes out
    'stripped.gcode': stripExtrusion(g['prusa.gcode'], 21),
    // layers 21–30 lost
    'gap.gcode': cutLayers(g['prusa.gcode'], 21, 31),
    'no-m30.nc': dropLines(pocket, /^M30/),
    'comments.gcode': '; only a comment\n; and another\n',
    'binary.gcode': Buffer.from([0x00, 0x47, 0x31, 0xff]),
    'empty.gcode': '',
  });
}, 300_000);
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
const headerTime = async (f: string): Promise<number> => {
  const m = /estimated printing time \(normal mode\) = (.*)/.exec(
    await readFile(path.join(dir.path, f), 'latin1'),
  )!;
  return [...m[1]!.matchAll(/(\d+)([hms])/g)].reduce(
    (a, x) => a + Number(x[1]) * { h: 3600, m: 60, s: 1 }[x[2] as 'h'],
    0,
  );
};

describe('gcode.check on FDM G-code from PrusaSlicer and CuraEngine', () => {
  it('passes the PrusaSlicer reference: envelope, first layer, layer height, budget, header, time, completeness', async () => {
    for (const p of [
      { check: 'envelope', expected: BOX, center: [100, 100], abs_tol: 0.5 },
      { check: 'min_z', expected: 0.2, abs_tol: 0.02 },
      { check: 'layer_height', expected: 0.2, first_layer: 0.2 },
      { check: 'extruded_volume', range: { max: 7000 }, part_volume: 13045 },
      { check: 'header', rel_tol: 0.02 },
      { check: 'print_time', range: { max: 2400 } },
      { check: 'complete', top_z: 12 },
      { check: 'feeds', range: { min: 100, max: 10000 } },
    ]) {
      const v = await check('prusa.gcode', p);
      expect(v, `${p.check}: ${v.reason}`).toMatchObject({ passed: true, score: 1 });
    }
  });
  it('recomputes the print time from the moves within 0.5 % of PrusaSlicer’s own estimate', async () => {
    for (const f of ['prusa.gcode', 'solid.gcode', 'multi.gcode']) {
      const v = await check(f, { check: 'print_time', range: { max: 1e6 } });
      const s = (v.measured as { seconds: number }).seconds;
      expect(Math.abs(s / (await headerTime(f)) - 1), `${f}: ${v.reason}`).toBeLessThan(0.005);
    }
    // one-sided quality: full marks at ≤ 1800 s, none at ≥ 2400 s; 1857 s scores 0.905
    const q = await check('prusa.gcode', {
      check: 'print_time',
      lower_is_better: { full: 1800, zero: 2400 },
    });
    expect(q.score).toBeGreaterThan(0.85);
    expect(q.score).toBeLessThan(0.95);
    expect(q.reason).toMatch(/lower is better/);
    const h = await check('prusa.gcode', {
      check: 'extruded_volume',
      higher_is_better: { full: 6000, zero: 4000 },
    });
    expect(h.score).toBeGreaterThan(0.5);
    expect(h.score).toBeLessThan(0.8);
  });
  it('passes CuraEngine output (a different slicer): 0.3 mm first layer, 0.15 mm layers, part size', async () => {
    const l = await check('cura.gcode', { check: 'layer_height', expected: 0.15, first_layer: 0.3 });
    expect(l, l.reason).toMatchObject({ passed: true });
    const e = await check('cura.gcode', { check: 'envelope', size: [40, 30, 11.7], abs_tol: 0.6 });
    expect(e, e.reason).toMatchObject({ passed: true });
    const c = await check('cura.gcode', { check: 'complete' });
    expect(c.reason).toMatch(/79 extruding layers up to Z 12 \(;LAYER_COUNT 79\)/);
    expect(c, c.reason).toMatchObject({ passed: true });
    // CuraEngine alone leaves "Filament used: 0m" and "TIME:6666" in its header: the cross-check says so
    expect((await check('cura.gcode', { check: 'header' })).reason).toMatch(
      /no usable "filament used" comment .*CuraEngine run alone leaves/,
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
    expect((await check('comments.gcode', { check: 'min_z', range: { min: 0 } })).reason).toMatch(
      /no G-code commands/,
    );
    expect((await check('binary.gcode', { check: 'min_z', range: { min: 0 } })).reason).toMatch(
      /binary content/,
    );
    expect((await check('empty.gcode', { check: 'min_z', range: { min: 0 } })).reason).toMatch(/is empty/);
  });
  it('refuses an abs_tol without expected and a misspelled tolerance', async () => {
    expect((await check('prusa.gcode', { check: 'min_z', target: 0.2, abs_tol: 0.02 })).reason).toMatch(
      /task error: invalid params.*give expected with abs_tol/,
    );
    expect(
      (await check('prusa.gcode', { check: 'envelope', size: [40, 30, 12], abs_tl: 0.5 })).reason,
    ).toMatch(/did you mean abs_tol/);
  });
});

describe('gcode.check complete: the whole program is there', () => {
  it('names a file that ends mid-line as truncated', async () => {
    const v = await check('truncated.gcode', { check: 'complete', top_z: 12 });
    expect(v).toMatchObject({ passed: false, measured: { final_newline: false } });
    expect(v.reason).toMatch(
      /file ends mid-line at byte \d+: truncated \(line \d+ is ".*" with no line break\)/,
    );
    expect(v.reason).toMatch(/extrusion stops at layer \d+ \(z [\d.]+ of 12\): the part's top is Z 12/);
  });
  it('names a missing end sequence, with per-flavour defaults and a task’s own sequence', async () => {
    const v = await check('no-end.gcode', { check: 'complete' });
    expect(v.reason).toMatch(
      /end sequence missing after the last extruding move \(line \d+\): no M104 S0\|M109 S0 \(hotend off\), M84\|M18 \(motors off\)/,
    );
    expect(v.passed).toBe(false);
    expect(await check('prusa.gcode', { check: 'complete', end_sequence: ['M84'] })).toMatchObject({
      passed: true,
    });
    // PrusaSlicer's default profile never heats a bed, so it never turns one off
    const bed = await check('prusa.gcode', { check: 'complete', end_sequence: ['M104 S0', 'M140 S0'] });
    expect(bed.reason).toMatch(/no M140 S0 \(bed off\)/);
    // CuraEngine heats the Ender-3's bed: the default asks for it to be turned off too, and it is
    expect((await check('cura.gcode', { check: 'complete' })).reason).toMatch(
      /M140 S0\|M190 S0 \(line \d+\)/,
    );
    const cnc = await check('no-m30.nc', { check: 'complete' });
    expect(cnc.reason).toMatch(
      /end sequence missing after the last cutting move \(line \d+\): no M2\|M30 \(program end\)/,
    );
    expect(await check('task-pocket.nc', { check: 'complete' })).toMatchObject({ passed: true });
    expect((await check('prusa.gcode', { check: 'complete', end_sequence: ['M104 X'] })).passed).toBe(false);
    expect((await check('prusa.gcode', { check: 'complete', end_sequence: ['turn off'] })).reason).toMatch(
      /task error: invalid params/,
    );
  });
  it('names a layer count short of the header’s declared one', async () => {
    const v = await check('cura-half.gcode', { check: 'complete' });
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /extrusion stops at layer \d+ of 79 \(z [\d.]+\): ;LAYER_COUNT \(line 34\) declares 79/,
    );
    expect(v.measured).toMatchObject({ declared_layers: 79, final_newline: true });
  });
  it('names extrusion that stops mid-part: layers without extrusion, and a jump in Z', async () => {
    const s = await check('stripped.gcode', { check: 'complete' });
    expect(s.reason).toMatch(
      /extrusion stops at layer 20 of 60 \(z 4 of 12\): 40 layer marker\(s\) follow with no extrusion/,
    );
    const g = await check('gap.gcode', { check: 'complete' });
    expect(g.reason).toMatch(
      /no extrusion between Z 4 and Z 6\.2 \(a 2\.2 mm jump, about 10 missing layers of 0\.2 mm; allowed 0\.5\): extrusion stops mid-part/,
    );
    expect(g.measured).toMatchObject({ layers: 50, largest_layer_step: 2.2 });
    expect(await check('gap.gcode', { check: 'complete', max_layer_gap: 3 })).toMatchObject({ passed: true });
  });
});

describe('gcode.check per tool', () => {
  it('limits checks to one extruder of a two-extruder PrusaSlicer print', async () => {
    const changes = await check('multi.gcode', { check: 'tool_changes', min: 2 });
    expect(changes, changes.reason).toMatchObject({ passed: true });
    expect((changes.measured as number[]).slice(0, 4)).toEqual([0, 1, 0, 1]);
    // T1 prints the infill, inside the perimeters T0 prints around it
    const inner = {
      check: 'envelope',
      within: { min: [80.5, 85.5, 0], max: [119.5, 114.5, 12] },
      abs_tol: 0.1,
    };
    expect(await check('multi.gcode', { ...inner, tool: 'T1' })).toMatchObject({ passed: true });
    const outer = await check('multi.gcode', { ...inner, tool: 0 });
    expect(outer.reason).toMatch(/extruding moves of tool T0 .* → min X 80\.2 is 0\.3 below the box's 80\.5/);
    expect(await check('multi.gcode', inner)).toMatchObject({ passed: false });
    const vol = async (tool?: string): Promise<number> =>
      (await check('multi.gcode', { check: 'extruded_volume', range: { min: 0 }, ...(tool ? { tool } : {}) }))
        .measured as number;
    const [t0, t1, all] = [await vol('T0'), await vol('T1'), await vol()];
    expect(t0).toBeGreaterThan(1000);
    expect(t1).toBeGreaterThan(1000);
    expect(t0 + t1).toBeCloseTo(all, 3);
    expect(await check('multi.gcode', { check: 'layer_height', expected: 0.2, tool: 'T1' })).toMatchObject({
      passed: true,
    });
    expect((await check('multi.gcode', { check: 'min_z', range: { min: 0 }, tool: 'T5' })).reason).toMatch(
      /no extruding moves of tool T5 .*tools used: T0, T1/,
    );
  });
  it('limits checks to one tool of a CNC program (M6): the end mill’s pocket, the drill’s holes and feeds', async () => {
    const pocket = { check: 'envelope', within: { min: [13, 13, -2], max: [19, 19, 5] }, abs_tol: 0.01 };
    const t1 = await check('pocket.nc', { ...pocket, tool: 'T1' });
    expect(t1, t1.reason).toMatchObject({ passed: true });
    // G3 X17 Y19 R2 is the short arc about (17, 17): the end mill never passes x = 19
    expect((t1.measured as { max: number[] }).max[0]).toBeCloseTo(19, 6);
    expect(await check('pocket.nc', pocket)).toMatchObject({ passed: false });
    const drilled = await check('pocket.nc', {
      check: 'holes',
      positions: [
        [30, 30],
        [40, 30],
      ],
      depth: -6,
      tool: 'T2',
    });
    expect(drilled, drilled.reason).toMatchObject({ passed: true });
    expect(drilled.reason).toMatch(/2 hole\(s\) drilled with tool T2/);
    const f = { check: 'feeds', range: { min: 100, max: 150 } };
    expect(await check('pocket.nc', { ...f, tool: 2 })).toMatchObject({ passed: true });
    expect((await check('pocket.nc', f)).reason).toMatch(/span 120–600 mm\/min/);
  });
});

describe('gcode.check envelope tolerance per axis', () => {
  it('holds Z tight and X, Y loose, and names the axis that is off', async () => {
    const tight = { check: 'envelope', expected: BOX, abs_tol: [0.5, 0.5, 0.05] };
    expect(await check('prusa.gcode', tight)).toMatchObject({ passed: true });
    const thick = await check('thick.gcode', tight);
    expect(thick.passed).toBe(false);
    expect(thick.reason).toMatch(/→ min Z 0\.3 vs 0\.2 ± 0\.05 \(off by 0\.1\)$/);
    expect(await check('thick.gcode', { ...tight, abs_tol: 0.5 })).toMatchObject({ passed: true });
    const x = await check('prusa.gcode', { ...tight, abs_tol: [0.1, 0.5, 0.5] });
    expect(x.reason).toMatch(/min X 80\.2 vs 80 ± 0\.1 .*max X 119\.8 vs 120 ± 0\.1/);
    expect(x.reason).not.toMatch(/ Y /);
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
    expect((env.measured as { max: number[] }).max[0]).toBeCloseTo(40, 5);
    // the G2 arc from (17, 13) around (17, 15) reaches x = 19; with R2 it is the short arc about (19, 13)
    const arc = parseGcode('G1 X17 Y13 F100\nG2 X19 Y15 I0 J2\n', 1000).moves;
    expect(Math.max(...arc.map((m) => m.to[0]))).toBeCloseTo(19, 6);
    const short = parseGcode('G1 X17 Y13 F100\nG2 X19 Y15 R2\n', 1000).moves.slice(1);
    expect(Math.min(...short.map((m) => m.to[0]))).toBeGreaterThan(16.99);
    expect(Math.max(...short.map((m) => m.to[1]))).toBeCloseTo(15, 6);
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
