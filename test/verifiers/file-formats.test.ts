/**
 * `file.format` content sniffing beyond STL/SPICE/Verilog, on files the real apps made: STEP (gmsh),
 * IFC (the starter model), DXF (ezdxf), Blender files and GLB (Blender), G-code (PrusaSlicer), a
 * KiCad netlist (Eeschema). Each whole file passes; a cut one fails naming the truncation; a file
 * of another format fails naming what it looks like. `detectFormat` (hand-off records) gives the
 * same canonical name `file.format` accepts, so a format name means one thing everywhere.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { canonicalFormat, detectFormat, verifyCriterion } from '../../verifiers/index.js';
import { contextFor, makeWithTool, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const kit = toolKit('verifiers-file-formats');
let dir: { path: string } & AsyncDisposable;
const made: Record<string, Buffer> = {};

const GEO = 'SetFactory("OpenCASCADE");\nBox(1) = {0, 0, 0, 20, 10, 5};\n';
const DXF_PY = [
  'import ezdxf',
  'd = ezdxf.new()',
  'm = d.modelspace()',
  'm.add_lwpolyline([(0, 0), (60, 0), (60, 40), (0, 40)], close=True)',
  'm.add_circle((30, 20), 5)',
  "d.saveas('plate.dxf')",
].join('\n');
const BLEND_PY = [
  'import bpy',
  "bpy.ops.wm.save_as_mainfile(filepath='/workspace/scene.blend')",
  "bpy.ops.export_scene.gltf(filepath='/workspace/scene.glb', export_format='GLB')",
].join('\n');
const SCAD = 'cube([20, 20, 4]);';

beforeAll(async () => {
  dir = await tempDir('file-formats');
  made.step = await makeWithTool(
    kit.runTool,
    'gmsh part.geo -0 -o part.step',
    { 'part.geo': GEO },
    'part.step',
  );
  made.dxf = await makeWithTool(kit.runTool, 'python3 make.py', { 'make.py': DXF_PY }, 'plate.dxf');
  made.gcode = await makeWithTool(
    kit.runTool,
    'openscad -o p.stl p.scad && prusa-slicer --export-gcode --center 100,100 -o p.gcode p.stl',
    { 'p.scad': SCAD },
    'p.gcode',
  );
  await using src = await tempDir('file-formats-src');
  await writeFiles(src.path, { 'make.py': BLEND_PY });
  const r = await kit.runTool({
    image: 'engiloop/blender:latest',
    command: 'blender -b --factory-startup -noaudio --python make.py',
    files: [{ hostPath: path.join(src.path, 'make.py'), dest: 'make.py' }],
    timeoutMs: 120_000,
    collect: ['scene.blend', 'scene.glb'],
  });
  if (!r.files['scene.blend'] || !r.files['scene.glb'])
    throw new Error(`Blender made no files: ${r.stderr}${r.stdout}`);
  made.blend = r.files['scene.blend'];
  made.glb = r.files['scene.glb'];
  made.ifc = await readFile('tasks/starter/bim-add-door/model.ifc');
  made.net = await readFile('test/fixtures/eda/kicad-divider.net');
  const half = (b: Buffer) => b.subarray(0, Math.floor(b.length / 2));
  await writeFiles(dir.path, {
    'part.step': made.step,
    'cut.step': half(made.step),
    'model.ifc': made.ifc,
    'cut.ifc': half(made.ifc),
    'plate.dxf': made.dxf,
    'cut.dxf': half(made.dxf),
    'scene.blend': made.blend,
    'scene.glb': made.glb,
    'cut.glb': half(made.glb),
    'part.gcode': made.gcode,
    'divider.net': made.net,
    'cut.net': half(made.net),
    'rc.net': '* RC low-pass\nV1 in 0 AC 1\nR1 in out 1k\nC1 out 0 100n\n.end\n',
    'step-as.ifc': made.step,
  });
}, 300_000);
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

const verify = (deliverable: string, format: string) =>
  verifyCriterion(contextFor(kit, dir.path), {
    id: 'format',
    verifier: 'file.format',
    deliverable,
    role: 'check',
    params: {},
    format,
  });

describe('file.format by content, on files the apps made', () => {
  it.each([
    ['part.step', 'step', /^STEP \(.*\), \d+ entities$/],
    ['model.ifc', 'ifc', /^IFC \(IFC4|IFC2X3/],
    ['plate.dxf', 'dxf', /ASCII DXF, sections .*ENTITIES/],
    ['scene.blend', 'blend', /Blender file v\d{3}|compressed/],
    ['scene.glb', 'glb', /GLB \(glTF 2\.0 binary\)/],
    ['part.gcode', 'gcode', /G-code, \d+ command lines, \d+ moves/],
    ['divider.net', 'net', /KiCad netlist/],
    ['divider.net', 'kicad_netlist', /KiCad netlist/],
  ])('%s passes as %s', async (file, format, seen) => {
    const v = await verify(file, format);
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    expect(v.measured).toMatch(seen);
  });

  it.each([
    ['cut.step', 'step', /truncated or unterminated STEP.*no .*END-ISO-10303-21;/],
    ['cut.ifc', 'ifc', /truncated or unterminated IFC.*END-ISO-10303-21;/],
    ['cut.dxf', 'dxf', /truncated DXF: no "0 \/ EOF"/],
    ['cut.glb', 'glb', /GLB header declares \d+ bytes but the file has \d+: truncated/],
    ['cut.net', 'net', /truncated KiCad netlist: \d+ unclosed/],
    ['rc.net', 'net', /not a KiCad netlist: the content looks like a SPICE netlist/],
    ['step-as.ifc', 'ifc', /not an IFC file: the content looks like a STEP file/],
    ['part.gcode', 'step', /not a STEP file: the content looks like G-code/],
  ])('%s fails as %s, naming why', async (file, format, reason) => {
    const v = await verify(file, format);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(reason);
  });

  it('detectFormat names each file as file.format accepts it', () => {
    const want: Record<string, string> = {
      step: 'step',
      ifc: 'ifc',
      dxf: 'dxf',
      blend: 'blend',
      glb: 'glb',
      gcode: 'gcode',
      net: 'net',
    };
    for (const [k, declared] of Object.entries(want))
      expect(detectFormat(made[k]!), k).toBe(canonicalFormat(declared));
    expect(canonicalFormat('net')).toBe('kicad_net');
    expect(canonicalFormat('cir')).toBe('spice');
    expect(detectFormat(Buffer.from('* RC\nR1 a b 1k\n.end\n'))).toBe('spice');
  });
});
