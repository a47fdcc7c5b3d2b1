/**
 * `gltf.scene`: a GLB exported by Blender (reference), a .gltf written by @gltf-transform/core
 * (alternative), and defective files: wrong values, truncated, empty, wrong format, escaping URIs.
 */
import { Document, NodeIO } from '@gltf-transform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../actors/sandbox/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { BLENDER_IMAGE } from '../../verifiers/viz/index.js';
import { contextFor, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const kit = toolKit('verifiers-viz-gltf');
let dir: { path: string } & AsyncDisposable;

// Blender (x, y, z) → glTF (x, z, −y): Box at Blender (1, 2, 3) is glTF (1, 3, −2).
const BUILD = `
import bpy, math
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
m = bpy.data.materials.new("Red")
m.use_nodes = True
m.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.8, 0.1, 0.1, 1)
bpy.ops.mesh.primitive_cube_add(size=2, location=(1, 2, 3), rotation=(0, 0, math.radians(30)))
bpy.context.object.name = "Box"
bpy.context.object.scale = (1, 2, 1)
bpy.context.object.data.materials.append(m)
cd = bpy.data.cameras.new("Cam"); cd.sensor_fit = "VERTICAL"; cd.angle_y = math.radians(45)
cam = bpy.data.objects.new("Cam", cd); bpy.context.scene.collection.objects.link(cam)
cam.location = (0, -10, 0); cam.rotation_euler = (math.radians(90), 0, 0)
bpy.ops.export_scene.gltf(filepath="/workspace/out.glb", export_format="GLB", export_cameras=True)
`;

/** What the reference holds, in glTF's frame. */
const SPEC = {
  objects: [
    {
      name: 'Box',
      type: 'mesh',
      location: [1, 3, -2],
      rotation_euler_deg: [0, 30, 0],
      scale: [1, 1, 2],
      materials: ['Red'],
    },
    {
      name: 'Cam',
      type: 'camera',
      location: [0, 0, 10],
      look_at: [0, 0, 0],
      camera: { type: 'perspective', yfov_deg: 45 },
    },
  ],
  materials: [{ name: 'Red', base_color: [0.8, 0.1, 0.1, 1] }],
  counts: { mesh: 1, camera: 1 },
};

async function alternative(): Promise<{ gltf: string; glb: Uint8Array }> {
  const doc = new Document();
  const buf = doc.createBuffer();
  const pos = doc
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
    .setBuffer(buf);
  const mat = doc.createMaterial('Red').setBaseColorFactor([0.81, 0.1, 0.1, 1]);
  const mesh = doc
    .createMesh('m')
    .addPrimitive(doc.createPrimitive().setAttribute('POSITION', pos).setMaterial(mat));
  // Box as a child of a rotated, translated parent: world transforms are what count.
  const parent = doc
    .createNode('Parent')
    .setTranslation([1, 3, -2])
    .setRotation([0, Math.sin(Math.PI / 12), 0, Math.cos(Math.PI / 12)]);
  parent.addChild(doc.createNode('Box').setMesh(mesh).setScale([1, 1, 2]));
  const cam = doc
    .createCamera('c')
    .setType('perspective')
    .setYFov((45 * Math.PI) / 180)
    .setZNear(0.1);
  const camNode = doc.createNode('Cam').setCamera(cam).setTranslation([0, 0, 10]);
  doc.createScene().addChild(parent).addChild(camNode);
  const io = new NodeIO();
  const json = await io.writeJSON(doc);
  const [uri, bytes] = Object.entries(json.resources)[0] ?? ['', new Uint8Array()];
  json.json.buffers = [
    {
      byteLength: bytes.length,
      uri: `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`,
    },
  ];
  void uri;
  return { gltf: JSON.stringify(json.json), glb: await io.writeBinary(doc) };
}

beforeAll(async () => {
  dir = await tempDir('viz-gltf');
  await using src = await tempDir('viz-gltf-src');
  await writeFiles(src.path, { 'build.py': BUILD });
  const r = await kit.runTool({
    image: BLENDER_IMAGE,
    command: 'blender -b --factory-startup -noaudio --python build.py',
    files: [{ hostPath: `${src.path}/build.py`, dest: 'build.py' }],
    timeoutMs: 120_000,
    collect: ['out.glb'],
  });
  const glb = r.files['out.glb'];
  if (glb === undefined) throw new Error(`Blender made no GLB: ${r.stderr}${r.stdout}`);
  const alt = await alternative();
  await writeFiles(dir.path, {
    'reference.glb': glb,
    'alternative.gltf': alt.gltf,
    'alternative.glb': Buffer.from(alt.glb),
    'truncated.glb': glb.subarray(0, Math.floor(glb.length / 2)),
    'garbage.glb': Buffer.concat([glb.subarray(0, 20), Buffer.alloc(glb.length - 20, 0x41)]),
    'empty.glb': '',
    'image.glb': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
    'broken.gltf': '{"asset": {"version": "2.0"}, "nodes": [',
    'v1.gltf': '{"asset": {"version": "1.0"}}',
    'escape.gltf': JSON.stringify({
      asset: { version: '2.0' },
      buffers: [{ uri: '../../etc/passwd', byteLength: 4 }],
    }),
  });
}, 180_000);
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

function check(deliverable: string, params: Record<string, unknown> = SPEC): Promise<Verdict> {
  return verifyCriterion(contextFor(kit, dir.path), {
    id: 'g',
    verifier: 'gltf.scene',
    deliverable,
    role: 'check',
    params,
  });
}

describe('gltf.scene on valid files', () => {
  it("passes Blender's GLB (Z up mapped to Y up, camera included)", async () => {
    const v = await check('reference.glb');
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    expect(v.reason).toMatch(/all 13 scene checks within tolerance/);
    expect((v.measured as Record<string, unknown>)['Box.location']).toEqual([1, 3, -2]);
  });
  it('passes an alternative .gltf (embedded buffer, nested nodes) and the same as GLB', async () => {
    for (const f of ['alternative.gltf', 'alternative.glb']) {
      const v = await check(f);
      expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    }
  });
});

describe('gltf.scene names what is wrong', () => {
  it('fails a node moved, turned or rescaled beyond tolerance, with measured, expected, tolerance', async () => {
    const v = await check('reference.glb', {
      objects: [
        { name: 'Box', location: [1, 3, -1.98], rotation_euler_deg: [0, 32, 0], scale: [1, 1, 2.05] },
      ],
    });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(
      /3 of 3 scene checks failed: Box.location: 0.02 units away .*Box.rotation: rotated 2° away.*Box.scale: off by 0.05/,
    );
    expect(v.tolerance).toMatchObject({ 'Box.location': 0.01, 'Box.rotation': '1°', 'Box.scale': 0.01 });
  });
  it('fails a missing node, a wrong colour, a missing material and a wrong yfov', async () => {
    const v = await check('reference.glb', {
      objects: [
        { name: 'Pillar' },
        { name: 'Cam', camera: { yfov_deg: 50 } },
        { name: 'Box', materials: ['Steel'] },
      ],
      materials: [{ name: 'Red', base_color: [0.5, 0.1, 0.1] }],
    });
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(/no object named "Pillar" \(have: Cam, Box\)/);
    expect(v.reason).toMatch(/Cam.camera.yfov_deg: off by 5°/);
    expect(v.reason).toMatch(/Box.materials: missing Steel/);
    expect(v.reason).toMatch(/material Red.base_color: off by 0.3 in a channel/);
  });
  it('fails a camera aimed elsewhere', async () => {
    const v = await check('reference.glb', { objects: [{ name: 'Cam', look_at: [5, 0, 0] }] });
    expect(v.reason).toMatch(/Cam.look_at: aims 26.565\d*° away/);
  });
});

describe('gltf.scene fails unreadable files with the reason, never throwing', () => {
  it.each([
    ['truncated.glb', /declares \d+ bytes but the file has \d+ \(truncated\?\)/],
    ['garbage.glb', /glTF could not be parsed/],
    ['empty.glb', /is empty/],
    ['image.glb', /neither a GLB .* nor glTF JSON/],
    ['broken.gltf', /not valid JSON/],
    ['v1.gltf', /not a glTF 2.0 asset/],
    ['escape.gltf', /points outside the delivered files/],
    ['none.glb', /is missing/],
  ])('%s', async (file, reason) => {
    const v = await check(file);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(reason);
  });
  it('rejects bad params early', async () => {
    const v = await check('reference.glb', { objects: [{ name: 'Box', rotation_euler_deg: [0, 0] }] });
    expect(v.reason).toMatch(/invalid params for gltf.scene/);
  });
});
