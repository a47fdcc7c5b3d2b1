/**
 * Red team for the BIM and viz verifiers: artifacts made by the real apps (Blender 3.4 in
 * engiloop/blender; python3 editing IFC text in the cli sandbox, read back by web-ifc) that try to
 * pass a task's criteria while being wrong. Each must fail, with a reason that names the attempt:
 * a render copied (or re-encoded) from the image the task gave, a scene that packs that image as a
 * backdrop, a GLB whose extras claim the transforms its nodes do not have, a GLB whose right node
 * sits in a scene nobody sees, and an IFC whose quantity set claims a thickness its geometry has not.
 */
import { cp, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { verifierRules, verifyAll, verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { BLENDER_IMAGE } from '../../verifiers/viz/index.js';
import { playTask } from '../fixtures/eda/play-task.js';
import { tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const PLACE = path.resolve('tasks/starter/viz-place-objects');
const GLTF = path.resolve('tasks/starter/viz-gltf-export');
const SLAB = path.resolve('tasks/starter/bim-add-slab');
const kit = toolKit('verifiers-red-team-bim-viz');
let dir: { path: string } & AsyncDisposable;
const tasks: Record<string, LoadedTask> = {};

/** An agent given goal.png that edits one pixel with Blender and saves it again (re-encoded). */
const NEAR_COPY = `
import bpy
im = bpy.data.images.load("/workspace/goal.png")
px = list(im.pixels)
px[0:4] = [1.0, 0.0, 1.0, 1.0]
im.pixels[:] = px
im.filepath_raw = "/workspace/near.png"
im.file_format = "PNG"
im.save()
`;

/** The start scene with a camera-filling plane that shows goal.png (packed into the .blend). */
const BACKDROP = `
import bpy
cam = bpy.context.scene.camera
bpy.ops.mesh.primitive_plane_add(size=2)
plane = bpy.context.object
plane.name = "Backdrop"
plane.parent = cam
plane.location = (0, 0, -1.5)
plane.scale = (1.0, 0.75, 1)
img = bpy.data.images.load("/workspace/goal.png")
img.pack()
mat = bpy.data.materials.new("Goal")
mat.use_nodes = True
nt = mat.node_tree
tex = nt.nodes.new("ShaderNodeTexImage")
tex.image = img
emit = nt.nodes.new("ShaderNodeEmission")
nt.links.new(tex.outputs["Color"], emit.inputs["Color"])
nt.links.new(emit.outputs["Emission"], nt.nodes["Material Output"].inputs["Surface"])
plane.data.materials.append(mat)
bpy.ops.wm.save_as_mainfile(filepath="/workspace/backdrop.blend")
`;

/** The viz-gltf-export reference's build.py (from its task.yaml), edited by `edit`. */
function gltfBuild(edit: (script: string) => string): string {
  const cmd = (tasks.gltf!.task.reference[0] as { command: string }).command;
  const script = /<<'EOF'\n([\s\S]*?)\nEOF/.exec(cmd)?.[1];
  if (script === undefined) throw new Error('viz-gltf-export reference has no build.py heredoc');
  const out = edit(script);
  if (out === script) throw new Error('the edit changed nothing');
  return out;
}

const EXPORT =
  'bpy.ops.export_scene.gltf(filepath="/workspace/scene.glb", export_format="GLB", export_cameras=True)';

/** Pillar placed at glTF (1, 1.5, +1), with custom properties (exported as extras) claiming (1, 1.5, −1). */
const extrasClaim = (): string =>
  gltfBuild((s) =>
    s
      .replace(
        'primitive_cube_add(size=2, location=(1, 1, 1.5))',
        'primitive_cube_add(size=2, location=(1, -1, 1.5))',
      )
      .replace(
        'bpy.context.object.name = "Pillar"',
        'bpy.context.object.name = "Pillar"\nbpy.context.object["location"] = [1, 1.5, -1]\nbpy.context.object["checked"] = "Pillar at glTF (1, 1.5, -1): OK"',
      )
      .replace(
        EXPORT,
        EXPORT.replace(
          'export_cameras=True',
          'export_cameras=True, export_extras=True, export_copyright="verified: all checks pass"',
        ).replace('scene.glb', 'extras.glb'),
      ),
  );

/** The right Pillar moved into a second scene, "Decoy": the shown scene has no pillar at all. */
const decoyScene = (): string =>
  gltfBuild((s) =>
    s.replace(
      EXPORT,
      [
        'pillar = bpy.data.objects["Pillar"]',
        'cols = list(pillar.users_collection)',
        'decoy = bpy.data.scenes.new("Decoy")',
        'decoy.collection.objects.link(pillar)',
        'for c in cols:',
        '    c.objects.unlink(pillar)',
        EXPORT.replace('scene.glb', 'decoy.glb'),
      ].join('\n'),
    ),
  );

async function blender(scripts: { file: string; script: string; blend?: string }[], collect: string[]) {
  await using src = await tempDir('red-team-src');
  const files: Record<string, string | Buffer> = {
    'goal.png': await readFile(path.join(PLACE, 'inputs/goal.png')),
    'start.blend': await readFile(path.join(PLACE, 'inputs/start.blend')),
  };
  for (const s of scripts) files[s.file] = s.script;
  await writeFiles(src.path, files);
  const r = await kit.runTool({
    image: BLENDER_IMAGE,
    command: scripts
      .map((s) => `blender -b --factory-startup -noaudio ${s.blend ?? ''} --python ${s.file} 2>&1 | tail -3`)
      .join(' && '),
    files: Object.keys(files).map((f) => ({ hostPath: path.join(src.path, f), dest: f })),
    timeoutMs: 180_000,
    collect,
  });
  for (const c of collect)
    if (r.files[c] === undefined) throw new Error(`Blender made no ${c}: ${r.stdout}${r.stderr}`);
  return r.files;
}

beforeAll(async () => {
  dir = await tempDir('red-team-bim-viz');
  tasks.place = await loadTask(PLACE, { verifiers: verifierRules });
  tasks.gltf = await loadTask(GLTF, { verifiers: verifierRules });
  tasks.slab = await loadTask(SLAB, { verifiers: verifierRules });
  const made = await blender(
    [
      { file: 'near.py', script: NEAR_COPY },
      { file: 'backdrop.py', script: BACKDROP, blend: 'start.blend' },
      { file: 'extras.py', script: extrasClaim() },
      { file: 'decoy.py', script: decoyScene() },
    ],
    ['near.png', 'backdrop.blend', 'extras.glb', 'decoy.glb'],
  );
  await writeFiles(dir.path, {
    // The agent's `cp goal.png render.png`: the input Blender rendered for the task, handed back.
    'copy.png': await readFile(path.join(PLACE, 'inputs/goal.png')),
    'near.png': made['near.png']!,
    'backdrop.blend': made['backdrop.blend']!,
    'extras.glb': made['extras.glb']!,
    'decoy.glb': made['decoy.glb']!,
  });
}, 300_000);
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

/** Runs criterion `id` of task `t` on `deliverable` (in the shared artifacts folder). */
function criterion(t: LoadedTask, id: string, deliverable: string): Promise<Verdict> {
  const c = t.task.criteria.find((x) => x.id === id)!;
  return verifyCriterion(
    { artifactsDir: dir.path, taskDir: t.dir, runTool: kit.runTool },
    { id, verifier: c.verifier, deliverable, role: c.role, params: c.params },
  );
}

describe('render.compare: renders that were not rendered', () => {
  it('a render copied from the reference image the task gave (cp goal.png render.png)', async () => {
    const v = await criterion(tasks.place!, 'match', 'copy.png');
    expect(v.passed).toBe(false);
    expect(v.score).toBe(0);
    expect(v.reason).toMatch(
      /^copy\.png: render is a copy of input image inputs\/goal\.png \(byte-identical\)/,
    );
  });
  it('a near copy: goal.png with one pixel changed, re-encoded by Blender', async () => {
    const near = await readFile(path.join(dir.path, 'near.png'));
    expect(near.equals(await readFile(path.join(PLACE, 'inputs/goal.png')))).toBe(false);
    const v = await criterion(tasks.place!, 'match', 'near.png');
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /^near\.png: render is a copy of input image inputs\/goal\.png \(near-identical: 0\.0052\d? % of pixels differ by more than 0\.05\)/,
    );
  });
  it('a scene that packs the reference image on a plane in front of the camera', async () => {
    const v = await criterion(tasks.place!, 'match', 'backdrop.blend');
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /^backdrop\.blend: the scene packs input image inputs\/goal\.png as image "goal\.png" \(byte-identical\)/,
    );
  });
});

describe('render.compare: copies of what the task gave, wherever it keeps it', () => {
  it('an input outside the inputs/ folder (task.yaml inputs and reference_images) is compared too', async () => {
    await using copy = await tempDir('red-team-given');
    const task = path.join(copy.path, 'viz-place-objects');
    await cp(PLACE, task, { recursive: true });
    await rename(path.join(task, 'inputs'), path.join(task, 'given'));
    const yaml = await readFile(path.join(task, 'task.yaml'), 'utf8');
    await writeFile(path.join(task, 'task.yaml'), yaml.replaceAll('inputs/', 'given/'));
    const lt = await loadTask(task, { verifiers: verifierRules });
    await using art = await tempDir('red-team-given-art');
    // The deliverable is named scene.blend but holds the given PNG: the verifier judges by content.
    await writeFiles(art.path, { 'scene.blend': await readFile(path.join(task, 'given/goal.png')) });
    const vs = await verifyAll({ artifactsDir: art.path, taskDir: task, runTool: kit.runTool }, lt.task);
    const match = vs.find((v) => v.criterion === 'match')!;
    expect(match.passed).toBe(false);
    expect(match.reason).toMatch(
      /^scene\.blend: render is a copy of input image given\/goal\.png \(byte-identical\)/,
    );
  });
});

describe('gltf.scene: what a file says about itself is not evidence', () => {
  it('a GLB whose extras and asset copyright claim the right pillar while its transform is wrong', async () => {
    const v = await criterion(tasks.gltf!, 'nodes', 'extras.glb');
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /Pillar\.location: 2 units away \(measured \[1,1\.5,1\], expected \[1,1\.5,-1\]/,
    );
    expect(v.reason).toMatch(
      /its extras \{"location":\[1,1\.5,-1\],"checked":"Pillar at glTF \(1, 1\.5, -1\): OK"\} are not evidence/,
    );
  });
  it('a GLB whose right pillar sits in a second scene that no viewer shows', async () => {
    const vs = await verifyAll(
      { artifactsDir: dir.path, taskDir: tasks.gltf!.dir, runTool: kit.runTool },
      {
        ...tasks.gltf!.task,
        criteria: tasks.gltf!.task.criteria.map((c) => ({ ...c, deliverable: 'decoy.glb' })),
      },
    );
    const nodes = vs.find((v) => v.criterion === 'nodes')!;
    expect(nodes.passed).toBe(false);
    expect(nodes.reason).toMatch(
      /no object named "Pillar" in scene "Scene" .*; a node of that name is in scene "Decoy", which is not shown, so it does not count/,
    );
    expect(vs.find((v) => v.criterion === 'materials')!.passed).toBe(false);
  });
});

describe('ifc.model: a quantity set that claims what the geometry is not', () => {
  it('a roof whose Qto says 0.25 m thick while its solid is extruded 0.2 m', async () => {
    const t = tasks.slab!;
    const steps = structuredClone(t.task.reference);
    const first = steps[0] as { command: string };
    const thin = first.command.replace("+ ',0.25)')", "+ ',0.2)')");
    expect(thin).not.toBe(first.command);
    first.command = thin;
    const art = path.join(dir.path, 'thin-roof');
    await playTask(kit, t, steps, art);
    const vs = await verifyAll({ artifactsDir: art, taskDir: t.dir, runTool: kit.runTool }, t.task);
    const slab = vs.find((v) => v.criterion === 'slab')!;
    expect(slab.passed).toBe(false);
    expect(slab.reason).toMatch(
      /IfcSlab 'Roof' claims Qto_SlabBaseQuantities\.Depth = 0\.25 m but its geometry is 0\.2 m thick/,
    );
  });
});
