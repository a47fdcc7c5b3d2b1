/**
 * The viz verifiers' cost: the time to verify a reference artifact (`gltf.scene` and
 * `render.compare` with a PNG run in process; `blend.scene` itself runs Blender in a tool
 * container) against the time Blender takes to reopen the same file in a fresh tool container
 * (open it and print its object count or image size).
 *
 * Run directly: `node --import tsx bench/verifiers-viz.ts [repeats]` (default 3, median reported).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRunTool, DockerSandboxProvider } from '../actors/sandbox/index.js';
import { packageRoot } from '../actors/paths.js';
import { verifyCriterion, type RunTool, type VerifierContext } from '../verifiers/index.js';
import { BLENDER_IMAGE } from '../verifiers/viz/index.js';

/** One verifier's row. */
export interface VizBenchRow {
  verifier: string;
  /** Median time of `verifyCriterion` on the reference artifact. */
  inProcessMs: number;
  /** Median time of Blender reopening the same file in a fresh tool container. */
  appReopenMs: number;
  app: string;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)] ?? Number.NaN);
};

async function timed(n: number, f: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

async function blender(runTool: RunTool, dir: string, file: string, expr: string, collect: string[] = []) {
  const r = await runTool({
    image: BLENDER_IMAGE,
    command: `blender -b --factory-startup -noaudio --python-expr '${expr}'`,
    files: [{ hostPath: path.join(dir, file), dest: file }],
    timeoutMs: 120_000,
    collect,
  });
  if (r.exitCode !== 0) throw new Error(`Blender failed on ${file}: ${r.stderr.slice(-500)}`);
  return r;
}

/** Measures each viz verifier on artifacts made from the viz-camera-light and viz-place-objects tasks. */
export async function benchVizVerifiers(
  o: { repeats?: number; runTool?: RunTool } = {},
): Promise<VizBenchRow[]> {
  const n = o.repeats ?? 3;
  const runTool = o.runTool ?? createRunTool(new DockerSandboxProvider(), { memoryMb: 2048 });
  const tasks = path.join(packageRoot(), 'tasks/starter');
  const dir = await mkdtemp(path.join(tmpdir(), 'engiloop-bench-viz-'));
  try {
    await writeFile(
      path.join(dir, 'scene.blend'),
      await readFile(path.join(tasks, 'viz-camera-light/inputs/start.blend')),
    );
    await writeFile(
      path.join(dir, 'goal.png'),
      await readFile(path.join(tasks, 'viz-place-objects/hidden/goal.png')),
    );
    const made = await blender(
      runTool,
      dir,
      'scene.blend',
      'import bpy; bpy.ops.wm.open_mainfile(filepath="/workspace/scene.blend"); bpy.ops.export_scene.gltf(filepath="/workspace/scene.glb", export_format="GLB", export_cameras=True)',
      ['scene.glb'],
    );
    await writeFile(path.join(dir, 'scene.glb'), made.files['scene.glb'] ?? Buffer.alloc(0));
    const ctx: VerifierContext = {
      artifactsDir: dir,
      taskDir: path.join(tasks, 'viz-place-objects'),
      runTool,
    };
    const verify = (verifier: string, deliverable: string, params: Record<string, unknown>) => async () => {
      const v = await verifyCriterion(ctx, { id: 'bench', verifier, deliverable, role: 'check', params });
      if (!v.passed) throw new Error(`${verifier} failed its reference artifact: ${v.reason}`);
    };
    // Blender (x, y, z) → glTF (x, z, −y).
    const gltf = verify('gltf.scene', 'scene.glb', {
      objects: [
        { name: 'Cube', location: [-1.2, 1, 0] },
        { name: 'Sphere', location: [1.6, 1, -0.8] },
      ],
    });
    const blend = verify('blend.scene', 'scene.blend', {
      objects: [
        { name: 'Cube', location: [-1.2, 0, 1] },
        { name: 'Camera', type: 'camera' },
      ],
    });
    // A PNG equal to viz-camera-light's hidden goal: scored against it, and not a copy of anything
    // that task gives the agent (viz-place-objects hands its goal.png out, so a copy would fail).
    await writeFile(
      path.join(dir, 'render.png'),
      await readFile(path.join(tasks, 'viz-camera-light/hidden/goal.png')),
    );
    const png = async () => {
      const c = { ...ctx, taskDir: path.join(tasks, 'viz-camera-light') };
      const v = await verifyCriterion(c, {
        id: 'bench',
        verifier: 'render.compare',
        deliverable: 'render.png',
        role: 'check',
        params: {},
      });
      if (!v.passed) throw new Error(`render.compare failed its reference artifact: ${v.reason}`);
    };
    const objectCount = (f: string, open: string) => () =>
      blender(runTool, dir, f, `import bpy; ${open}; print("objects", len(bpy.data.objects))`);
    return [
      {
        verifier: 'gltf.scene',
        inProcessMs: await timed(n, gltf),
        appReopenMs: await timed(
          n,
          objectCount('scene.glb', 'bpy.ops.import_scene.gltf(filepath="/workspace/scene.glb")'),
        ),
        app: 'Blender 3.4 glTF import',
      },
      {
        verifier: 'blend.scene',
        inProcessMs: await timed(n, blend),
        appReopenMs: await timed(
          n,
          objectCount('scene.blend', 'bpy.ops.wm.open_mainfile(filepath="/workspace/scene.blend")'),
        ),
        app: 'Blender 3.4 open .blend',
      },
      {
        verifier: 'render.compare (PNG)',
        inProcessMs: await timed(n, png),
        appReopenMs: await timed(n, () =>
          blender(
            runTool,
            dir,
            'goal.png',
            'import bpy; print("size", tuple(bpy.data.images.load("/workspace/goal.png").size))',
          ),
        ),
        app: 'Blender 3.4 image load',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await benchVizVerifiers({ repeats: Number(process.argv[2] ?? 3) });
  console.log('verifier               in-process   app reopen  app');
  for (const r of rows)
    console.log(
      `${r.verifier.padEnd(22)} ${`${r.inProcessMs} ms`.padStart(10)}  ${`${r.appReopenMs} ms`.padStart(10)}  ${r.app}`,
    );
}
