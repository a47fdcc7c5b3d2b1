/**
 * `render.compare` against the committed goal and start renders of the viz-place-objects task
 * (made by Blender with test/fixtures/viz/make-renders.ts): delivered PNGs compared in process,
 * delivered .blend files rendered by Blender (Workbench) in a tool container, and broken inputs.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { BLENDER_IMAGE, improvement } from '../../verifiers/viz/index.js';
import { contextFor, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const TASK = path.resolve('tasks/starter/viz-place-objects');
const kit = toolKit('verifiers-viz-render');
let dir: { path: string } & AsyncDisposable;
// The task gives goal.png to the agent; scoring tests that deliver (a variant of) it say the agent
// was given nothing, copy tests use the task's default `inputs`.
const PARAMS = { engine: 'BLENDER_WORKBENCH', min_improvement: 0.05, copies: { inputs: [] } };
const DEFAULTS = { engine: 'BLENDER_WORKBENCH', min_improvement: 0.05 };

/** The goal render with a `w`×`h` black block painted at the top left. */
function paintOver(goal: Buffer, w: number, h: number): Buffer {
  const png = PNG.sync.read(goal);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) png.data.set([0, 0, 0, 255], 4 * (y * png.width + x));
  return PNG.sync.write(png);
}

/** `png` scaled up 2× by pixel doubling. */
function doubled(png: Buffer): Buffer {
  const a = PNG.sync.read(png);
  const b = new PNG({ width: a.width * 2, height: a.height * 2 });
  for (let y = 0; y < b.height; y++)
    for (let x = 0; x < b.width; x++)
      a.data.copy(
        b.data,
        4 * (y * b.width + x),
        4 * ((y >> 1) * a.width + (x >> 1)),
        4 * ((y >> 1) * a.width + (x >> 1)) + 4,
      );
  return PNG.sync.write(b);
}

beforeAll(async () => {
  dir = await tempDir('viz-render');
  const goal = await readFile(path.join(TASK, 'hidden/goal.png'));
  const small = new PNG({ width: 80, height: 60 });
  await using src = await tempDir('viz-render-src');
  await writeFiles(src.path, {
    'nocam.py': `import bpy\nbpy.data.objects.remove(bpy.data.objects["Camera"])\nbpy.ops.wm.save_as_mainfile(filepath="/workspace/nocam.blend")\n`,
  });
  const r = await kit.runTool({
    image: BLENDER_IMAGE,
    command: 'blender -b --factory-startup -noaudio --python nocam.py',
    files: [{ hostPath: path.join(src.path, 'nocam.py'), dest: 'nocam.py' }],
    timeoutMs: 120_000,
    collect: ['nocam.blend'],
  });
  await writeFiles(dir.path, {
    'goal.png': goal,
    'start.png': await readFile(path.join(TASK, 'hidden/start.png')),
    'painted.png': paintOver(goal, 40, 30),
    'stamped.png': paintOver(goal, 5, 5),
    'doubled.png': doubled(goal),
    'small.png': PNG.sync.write(small),
    'truncated.png': goal.subarray(0, 200),
    'notes.txt': 'not an image',
    'start.blend': await readFile(path.join(TASK, 'inputs/start.blend')),
    'nocam.blend': r.files['nocam.blend'] ?? Buffer.alloc(0),
  });
}, 180_000);
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

function compare(deliverable: string, params: Record<string, unknown> = PARAMS): Promise<Verdict> {
  return verifyCriterion(contextFor(kit, dir.path, TASK), {
    id: 'r',
    verifier: 'render.compare',
    deliverable,
    role: 'quality',
    params,
  });
}

describe('render.compare scores the improvement from start to goal', () => {
  it('scores the goal render 1 and the start render 0, in process', async () => {
    const goal = await compare('goal.png');
    expect(goal, goal.reason).toMatchObject({ passed: true, score: 1 });
    expect(goal.measured).toMatchObject({ diff_fraction: 0, improvement: 1 });
    const start = await compare('start.png');
    expect(start).toMatchObject({ passed: false, score: 0 });
    expect(start.reason).toMatch(/14.5 % of pixels differ .* → improvement 0.000, below 0.05/);
  });
  it('scores a partly wrong image in between (a 40×30 block over 19200 pixels)', async () => {
    const v = await compare('painted.png');
    const m = v.measured as { diff_fraction: number };
    expect(m.diff_fraction).toBeGreaterThan(0.03);
    expect(m.diff_fraction).toBeLessThanOrEqual(1200 / 19200);
    expect(v.score).toBeGreaterThan(0.5);
    expect(v.score).toBeLessThan(0.8);
  });
  it('renders a delivered .blend with Blender exactly as the start render was made (score 0)', async () => {
    // start.blend is also an input of the task: a scene is rendered, not compared with the inputs.
    const v = await compare('start.blend', DEFAULTS);
    expect(v.reason).toMatch(/\(Workbench, 160×120\)/);
    expect(v.measured).toMatchObject({ diff_fraction: expect.closeTo(0.1452, 3) as number, improvement: 0 });
  });
  it('gates on max_diff when asked', async () => {
    const v = await compare('painted.png', { ...PARAMS, max_diff: 0.01 });
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(/exceeds max_diff/);
  });
  it('computes the improvement as BlenderGym does', () => {
    expect(improvement(0.4, 0.1)).toBeCloseTo(0.75);
    expect(improvement(0.4, 0.5)).toBe(0);
    expect(improvement(0.4, 0)).toBe(1);
    expect(improvement(0, 0)).toBeNull();
  });
});

describe('render.compare fails copies of the images the agent was given', () => {
  it('fails a 5×5 stamp on the input goal as a near copy (0.13 % of pixels), naming the input', async () => {
    const v = await compare('stamped.png', DEFAULTS);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(
      /^stamped\.png: render is a copy of input image inputs\/goal\.png \(near-identical: 0\.13 % of pixels differ by more than 0\.05\)/,
    );
    expect(v.measured).toMatchObject({ copy_of: 'inputs/goal.png', copy: 'near-identical' });
  });
  it('finds a copy scaled to another size of the same aspect ratio', async () => {
    const v = await compare('doubled.png', DEFAULTS);
    expect(v.reason).toMatch(
      /render is a copy of input image inputs\/goal\.png \(near-identical: 0 % .*after scaling/,
    );
  });
  it('does not call a 40×30 block (6 % of pixels) a copy: it is scored', async () => {
    const v = await compare('painted.png', DEFAULTS);
    expect(v.reason).not.toMatch(/copy/);
    expect(v.score).toBeGreaterThan(0.5);
  });
});

describe('render.compare fails what it cannot compare, with the reason', () => {
  it.each([
    ['small.png', /image is 80×60, the goal is 160×120/],
    ['truncated.png', /PNG could not be decoded/],
    ['notes.txt', /neither a PNG nor a .blend/],
    ['nocam.blend', /the scene has no active camera/],
    ['none.png', /is missing/],
  ])('%s', async (file, reason) => {
    const v = await compare(file);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(reason);
  });
  it('fails when the start render equals the goal (nothing to score)', async () => {
    const v = await compare('goal.png', { ...PARAMS, start: 'hidden/goal.png' });
    expect(v.reason).toMatch(/does not differ from the goal/);
  });
});
