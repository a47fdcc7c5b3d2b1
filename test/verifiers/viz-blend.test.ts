/**
 * `blend.scene`: .blend files made by Blender in a tool container (reference, an alternative made
 * another way), and defective ones: wrong values, truncated, garbage, wrong format, empty.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { BLENDER_IMAGE } from '../../verifiers/viz/index.js';
import { contextFor, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const kit = toolKit('verifiers-viz-blend');
let dir: { path: string } & AsyncDisposable;

const REFERENCE = `
import bpy, math
cam = bpy.data.objects["Camera"]
cam.location = (7, -7, 5)
cam.rotation_euler = (math.radians(63), 0, math.radians(45))
cam.data.lens = 50
# A custom property: what the file says about itself, which the verifier names but never measures.
cam["pose"] = "checked: (7, -7, 4.9)"
bpy.data.objects["Light"].location = (4, -2, 6)
bpy.data.objects["Light"].data.energy = 800
m = bpy.data.materials["Material"]
m.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.1, 0.5, 0.9, 1)
bpy.ops.wm.save_as_mainfile(filepath="/workspace/reference.blend")
`;
// The same scene reached another way: camera parented to an empty, quaternion rotation mode,
// a node-less material, compressed file.
const ALTERNATIVE = `
import bpy, math
from mathutils import Quaternion, Euler
bpy.ops.object.empty_add(location=(6, -6, 4))
rig = bpy.context.object
cam = bpy.data.objects["Camera"]
cam.parent = rig
cam.location = (1, -1, 1)
cam.rotation_mode = "QUATERNION"
cam.rotation_quaternion = Euler((math.radians(63), 0, math.radians(45))).to_quaternion()
cam.data.lens = 50
bpy.data.objects["Light"].location = (4, -2, 6)
bpy.data.objects["Light"].data.energy = 800
m = bpy.data.materials["Material"]
m.use_nodes = False
m.diffuse_color = (0.1, 0.5, 0.9, 1)
bpy.ops.wm.save_as_mainfile(filepath="/workspace/alternative.blend", compress=True)
`;

const SPEC = {
  active_camera: 'Camera',
  objects: [
    {
      name: 'Camera',
      type: 'camera',
      location: [7, -7, 5],
      rotation_euler_deg: [63, 0, 45],
      camera: { lens_mm: 50, type: 'perspective' },
    },
    { name: 'Light', type: 'light', location: [4, -2, 6], light: { type: 'point', energy: 800 } },
    { name: 'Cube', type: 'mesh', materials: ['Material'] },
  ],
  materials: [{ name: 'Material', base_color: [0.1, 0.5, 0.9] }],
  render: { engine: 'BLENDER_EEVEE', resolution: [1920, 1080] },
};

async function blend(script: string, out: string): Promise<Buffer> {
  await using src = await tempDir('viz-blend-src');
  await writeFiles(src.path, { 'make.py': script });
  const r = await kit.runTool({
    image: BLENDER_IMAGE,
    command: 'blender -b --factory-startup -noaudio --python make.py',
    files: [{ hostPath: `${src.path}/make.py`, dest: 'make.py' }],
    timeoutMs: 120_000,
    collect: [out],
  });
  const b = r.files[out];
  if (b === undefined) throw new Error(`Blender made no ${out}: ${r.stderr}${r.stdout}`);
  return b;
}

beforeAll(async () => {
  dir = await tempDir('viz-blend');
  const [ref, alt] = await Promise.all([
    blend(REFERENCE, 'reference.blend'),
    blend(ALTERNATIVE, 'alternative.blend'),
  ]);
  await writeFiles(dir.path, {
    'reference.blend': ref,
    'alternative.blend': alt,
    'truncated.blend': ref.subarray(0, 4000),
    'garbage.blend': Buffer.concat([Buffer.from('BLENDER-v304'), Buffer.alloc(5000, 0x5a)]),
    'image.blend': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]),
    'empty.blend': '',
  });
}, 180_000);
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

function check(deliverable: string, params: Record<string, unknown> = SPEC): Promise<Verdict> {
  return verifyCriterion(contextFor(kit, dir.path), {
    id: 'b',
    verifier: 'blend.scene',
    deliverable,
    role: 'check',
    params,
  });
}

describe('blend.scene on valid files', () => {
  it('passes the reference: camera, light, material, render settings', async () => {
    const v = await check('reference.blend');
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    expect((v.measured as Record<string, unknown>)['Camera.location']).toEqual([7, -7, 5]);
  });
  it('passes an alternative: parented camera in quaternion mode, node-less material, compressed', async () => {
    const v = await check('alternative.blend');
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
  });
});

describe('blend.scene checks local transforms as well as world ones', () => {
  it("passes the parented camera in its rig's frame, and names the parent", async () => {
    const v = await check('alternative.blend', {
      objects: [
        {
          name: 'Camera',
          parent: 'Empty',
          space: 'local',
          location: [1, -1, 1],
          rotation_euler_deg: [63, 0, 45],
        },
        { name: 'Empty', parent: null, location: [6, -6, 4] },
      ],
    });
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    expect(v.measured).toMatchObject({ 'Camera.location (local)': [1, -1, 1], 'Camera.parent': 'Empty' });
  });
  it('fails the world position asked of the local frame, and a wrong parent', async () => {
    const v = await check('alternative.blend', {
      objects: [{ name: 'Camera', parent: null, space: 'local', location: [7, -7, 5] }],
    });
    expect(v.reason).toMatch(/Camera.parent: child of "Empty" \(measured "Empty", expected null\)/);
    expect(v.reason).toMatch(/Camera.location \(local\): 9.3808 units away \(measured \[1,-1,1\]/);
  });
});

describe('blend.scene names what is wrong', () => {
  it('fails wrong camera pose, light power and colour with measured, expected and tolerance', async () => {
    const v = await check('reference.blend', {
      objects: [
        { name: 'Camera', location: [7, -7, 4.9], rotation_euler_deg: [60, 0, 45] },
        { name: 'Light', light: { energy: 1000, type: 'sun' } },
      ],
      materials: [{ name: 'Material', base_color: [0.1, 0.5, 0.8] }],
      counts: { light: 2 },
    });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(/6 of 6 scene checks failed/);
    expect(v.reason).toMatch(/Camera.location: 0.1 units away/);
    expect(v.reason).toMatch(/its custom properties \{"pose":"checked: \(7, -7, 4.9\)"\} are not evidence/);
    expect(v.reason).toMatch(/Camera.rotation: rotated 3° away/);
    expect(v.reason).toMatch(/Light.light.type: another light type \(measured "point", expected "sun"\)/);
    expect(v.reason).toMatch(/Light.light.energy: off by 200/);
    expect(v.reason).toMatch(/and 1 more|count of light: 1 ≠ 2/);
    expect(v.expected).toMatchObject({ 'Light.light.energy': 1000 });
  });
  it('fails a missing object and a wrong active camera', async () => {
    const v = await check('reference.blend', { objects: [{ name: 'Key' }], active_camera: 'Cam2' });
    expect(v.reason).toMatch(/no object named "Key" \(have: Cube, Light, Camera\)/);
    expect(v.reason).toMatch(/active camera: a different camera is active/);
  });
});

describe('blend.scene fails unreadable files with the reason', () => {
  it.each([
    // Blender carries on with its default scene when the command line names a bad file: the
    // verifier opens it from Python instead, so this is a failure, not a check of the default cube.
    ['truncated.blend', /Blender could not open the file/],
    ['garbage.blend', /Blender could not open the file/],
    ['image.blend', /not a .blend file/],
    ['empty.blend', /is empty/],
  ])('%s', async (file, reason) => {
    const v = await check(file);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(reason);
  });
  it('fails when Blender runs past the time limit', async () => {
    const v = await check('reference.blend', { ...SPEC, timeout_sec: 0.05 });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(/Blender timed out after 0.05 s|Blender printed no result/);
  });
});
