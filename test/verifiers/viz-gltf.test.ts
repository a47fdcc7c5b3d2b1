/**
 * `gltf.scene`: a GLB exported by Blender (reference), a .gltf written by @gltf-transform/core
 * (alternative), and defective files: wrong values, truncated, empty, wrong format, escaping URIs,
 * and Blender's GLB tampered where only the Khronos validator looks (an index past the vertex
 * count, a buffer view past its buffer, a chunk length past the file).
 */
import { Document, NodeIO } from '@gltf-transform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
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

/** The parts of a GLB's JSON the tampering touches. */
interface GlbJson {
  meshes: { primitives: { indices: number }[] }[];
  accessors: { bufferView: number; byteOffset?: number }[];
  bufferViews: { byteOffset?: number; byteLength: number }[];
}

/** The JSON chunk, the BIN chunk's start and the JSON length of a GLB. */
function glbParts(glb: Buffer): { json: GlbJson; bin: number; jsonLength: number } {
  const jsonLength = glb.readUInt32LE(12);
  const json = JSON.parse(glb.subarray(20, 20 + jsonLength).toString('utf8')) as GlbJson;
  return { json, bin: 20 + jsonLength + 8, jsonLength };
}

/** Blender's GLB with index 5 of the first primitive's index buffer set past the last vertex. */
function corruptIndex(glb: Buffer): Buffer {
  const out = Buffer.from(glb);
  const { json, bin } = glbParts(out);
  const acc = json.accessors[json.meshes[0]!.primitives[0]!.indices]!;
  const view = json.bufferViews[acc.bufferView]!;
  out.writeUInt16LE(9999, bin + (view.byteOffset ?? 0) + (acc.byteOffset ?? 0) + 2 * 5);
  return out;
}

/** Blender's GLB with its first buffer view made 4000 bytes longer than the buffer holds. */
function longBufferView(glb: Buffer): Buffer {
  const { json, jsonLength } = glbParts(glb);
  json.bufferViews[0]!.byteLength += 4000;
  let text = JSON.stringify(json);
  text += ' '.repeat((4 - (text.length % 4)) % 4);
  const head = Buffer.alloc(20);
  head.writeUInt32LE(0x46546c67, 0);
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(text.length, 12);
  head.writeUInt32LE(0x4e4f534a, 16);
  const out = Buffer.concat([head, Buffer.from(text), glb.subarray(20 + jsonLength)]);
  out.writeUInt32LE(out.length, 8);
  return out;
}

/** Blender's GLB whose JSON chunk declares 400 bytes more than it has. */
function longChunk(glb: Buffer): Buffer {
  const out = Buffer.from(glb);
  out.writeUInt32LE(out.readUInt32LE(12) + 400, 12);
  return out;
}

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
    // A property glTF 2.0 does not define: the validator warns (UNEXPECTED_PROPERTY).
    'warned.gltf': alt.gltf.replace('"name":"Parent"', '"name":"Parent","position":[1,3,-2]'),
    'truncated.glb': glb.subarray(0, Math.floor(glb.length / 2)),
    'bad-index.glb': corruptIndex(glb),
    'long-view.glb': longBufferView(glb),
    'long-chunk.glb': longChunk(glb),
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
  it("passes Blender's GLB (Z up mapped to Y up, camera included), validated first", async () => {
    const v = await check('reference.glb');
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    expect(v.reason).toMatch(
      /all 13 scene checks within tolerance \(Box.type "mesh", Box.location \[1,3,-2\]/,
    );
    expect(v.reason).toMatch(/Khronos glTF validator 2\.0\.0-dev\.3\.10: 0 errors, 0 warnings$/);
    const m = v.measured as Record<string, unknown>;
    expect(m['Box.location']).toEqual([1, 3, -2]);
    expect(m.validation).toMatchObject({ errors: 0, warnings: 0 });
  });
  it('passes an alternative .gltf (embedded buffer, nested nodes) and the same as GLB', async () => {
    for (const f of ['alternative.gltf', 'alternative.glb']) {
      const v = await check(f);
      expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    }
  });
});

describe('gltf.scene checks local transforms as well as world ones', () => {
  it('passes the nested Box in its parent frame and names its parent', async () => {
    const v = await check('alternative.glb', {
      objects: [
        { name: 'Box', space: 'local', location: [0, 0, 0], rotation_euler_deg: [0, 0, 0], scale: [1, 1, 2] },
        { name: 'Box', parent: 'Parent', location: [1, 3, -2], rotation_euler_deg: [0, 30, 0] },
        { name: 'Parent', space: 'local', location: [1, 3, -2], parent: null },
      ],
    });
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    expect(v.measured).toMatchObject({ 'Box.location (local)': [0, 0, 0], 'Box.location': [1, 3, -2] });
  });
  it('fails a world position asked of the local frame, saying which frame', async () => {
    const v = await check('alternative.glb', {
      objects: [{ name: 'Box', space: 'local', location: [1, 3, -2], rotation_euler_deg: [0, 30, 0] }],
    });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(/Box.location \(local\): 3.7417 units away \(measured \[0,0,0\]/);
    expect(v.reason).toMatch(/Box.rotation \(local\): rotated 30° away/);
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
    ['garbage.glb', /Khronos glTF validator 2\.0\.0-dev\.3\.10 found \d+ errors?: GLB_/],
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
  it('fails a corrupt index buffer (Blender export, tampered) with the validator code and pointer', async () => {
    // @gltf-transform reads this file without complaint; a viewer would index past the vertices.
    const v = await check('bad-index.glb');
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(
      /^bad-index\.glb: the Khronos glTF validator \S+ found 1 error: ACCESSOR_INDEX_OOB at \/meshes\/0\/primitives\/0\/indices: Indices accessor element at index 5 has value 9999 that is greater than the maximum vertex index available \(23\)/,
    );
    expect(v.measured).toMatchObject({ validation: { errors: 1, codes: { ACCESSOR_INDEX_OOB: 1 } } });
  });
  it('fails a buffer view past its buffer and a chunk length past the file', async () => {
    const view = await check('long-view.glb');
    expect(view.reason).toMatch(
      /BUFFER_VIEW_TOO_LONG at \/bufferViews\/0\/byteLength: BufferView does not fit buffer/,
    );
    const chunk = await check('long-chunk.glb');
    expect(chunk.reason).toMatch(
      /GLB_CHUNK_TOO_BIG at @\d+: Chunk \(0x[0-9a-f]+\) length \(\d+\) does not fit total GLB length/,
    );
  });
  it('lets a task ignore a validator code, and fail on warnings when it asks', async () => {
    const ignored = await check('bad-index.glb', { ...SPEC, validation: { ignore: ['ACCESSOR_INDEX_OOB'] } });
    expect(ignored, ignored.reason).toMatchObject({ passed: true });
    // Blender's GLB has no warnings (one info: an unused TEXCOORD_0), so even fail_on: warning passes it.
    const strict = await check('reference.glb', { ...SPEC, validation: { fail_on: 'warning' } });
    expect(strict, strict.reason).toMatchObject({ passed: true });
    expect(strict.measured).toMatchObject({
      validation: { warnings: 0, infos: 1, codes: { UNUSED_OBJECT: 1 } },
    });
    const warned = await check('warned.gltf');
    expect(warned, warned.reason).toMatchObject({ passed: true });
    expect(warned.measured).toMatchObject({ validation: { warnings: 1 } });
    const failed = await check('warned.gltf', { ...SPEC, validation: { fail_on: 'warning' } });
    expect(failed.reason).toMatch(/found 1 issue: UNEXPECTED_PROPERTY at \/nodes\/\d+\/position/);
  });
  it('rejects bad params early', async () => {
    const v = await check('reference.glb', { objects: [{ name: 'Box', rotation_euler_deg: [0, 0] }] });
    expect(v.reason).toMatch(/invalid params for gltf.scene/);
  });
});
