/**
 * The CAD and drafting verifiers' cost: the time to verify a reference artifact in process (OCCT in
 * wasm, dxf-parser, manifold-3d) against the time the authoring app takes to reopen the same file
 * in a fresh tool container and print one fact about it (FreeCAD: volume; ezdxf: entity count;
 * OpenSCAD's sibling PrusaSlicer: `--info`). The artifacts are made by the apps first.
 *
 * In-process times are medians after one warm-up call (which pays OCCT's ~1 s start once per
 * process); the warm-up time is printed to stderr.
 *
 * Run directly: `npx tsx bench/verifiers-cad.ts [repeats]` (default 3, median reported).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRunTool, DockerSandboxProvider } from '../actors/sandbox/index.js';
import { stopOcct } from '../verifiers/cad/index.js';
import { verifyCriterion, type RunTool, type VerifierContext } from '../verifiers/index.js';

/** One verifier's row. */
export interface CadBenchRow {
  verifier: string;
  /** Median time of `verifyCriterion` on the reference artifact (after a warm-up call). */
  inProcessMs: number;
  /** Median time of the app reopening the same file in a fresh tool container. */
  appReopenMs: number;
  app: string;
}

const CLI = 'engiloop/cli:latest';
const FREECAD = 'engiloop/freecad:latest';

const BRACKET_PY = `
import FreeCAD as App, Part
doc = App.newDocument("Bracket")
s = Part.makeBox(60, 40, 5).fuse(Part.makeBox(5, 40, 40)).removeSplitter()
for x, y in [(20, 10), (45, 10), (20, 30), (45, 30)]:
    s = s.cut(Part.makeCylinder(3, 15, App.Vector(x, y, -5)))
s = s.cut(Part.makeCylinder(4, 15, App.Vector(-5, 20, 25), App.Vector(1, 0, 0)))
f = doc.addObject("Part::Feature", "Bracket"); f.Shape = s; doc.recompute()
s.exportStep("/workspace/bracket.step")
doc.saveAs("/workspace/bracket.FCStd")
`;
const PLATE_PY = `
import ezdxf
doc = ezdxf.new("R2010", setup=True)
doc.layers.add("OUTLINE", color=7); doc.layers.add("HOLES", color=1); doc.layers.add("DIMENSIONS", color=3)
msp = doc.modelspace()
msp.add_lwpolyline([(0, 0), (120, 0), (120, 80), (0, 80)], close=True, dxfattribs={"layer": "OUTLINE"})
for x, y in [(15, 15), (105, 15), (15, 65), (105, 65)]:
    msp.add_circle((x, y), 5, dxfattribs={"layer": "HOLES"})
msp.add_linear_dim(base=(60, -15), p1=(0, 0), p2=(120, 0), dxfattribs={"layer": "DIMENSIONS"}).render()
msp.add_text("MOUNTING PLATE", dxfattribs={"height": 5}).set_pos((0, -35))
doc.saveas("plate.dxf")
`;
const FLANGE_SCAD = `$fn = 96;
difference() {
  union() { cylinder(d = 80, h = 10); cylinder(d = 40, h = 30); }
  translate([0, 0, -1]) cylinder(d = 20, h = 32);
  for (a = [0:60:300]) rotate([0, 0, a]) translate([30, 0, -1]) cylinder(d = 8, h = 12);
}`;

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

async function make(
  runTool: RunTool,
  dir: string,
  image: string,
  command: string,
  src: Record<string, string>,
  out: string[],
) {
  for (const [name, text] of Object.entries(src)) await writeFile(path.join(dir, name), text);
  const r = await runTool({
    image,
    command,
    files: Object.keys(src).map((n) => ({ hostPath: path.join(dir, n), dest: n })),
    timeoutMs: 180_000,
    collect: out,
  });
  for (const o of out) {
    const b = r.files[o];
    if (b === undefined) throw new Error(`${command} made no ${o}: ${r.stderr}${r.stdout}`);
    await writeFile(path.join(dir, o), b);
  }
}

/** Times each CAD/drafting verifier on its reference artifact against the app reopening it. */
export async function benchCadVerifiers(repeats = 3): Promise<CadBenchRow[]> {
  const runTool = createRunTool(new DockerSandboxProvider());
  const dir = await mkdtemp(path.join(tmpdir(), 'engiloop-bench-cad-'));
  try {
    await make(runTool, dir, FREECAD, 'freecadcmd bracket.py', { 'bracket.py': BRACKET_PY }, [
      'bracket.step',
      'bracket.FCStd',
    ]);
    await make(runTool, dir, CLI, 'python3 plate.py', { 'plate.py': PLATE_PY }, ['plate.dxf']);
    await make(
      runTool,
      dir,
      CLI,
      'openscad -o flange.stl flange.scad && cp flange.stl ref.stl',
      { 'flange.scad': FLANGE_SCAD },
      ['flange.stl', 'ref.stl'],
    );
    const ctx: VerifierContext = { artifactsDir: dir, taskDir: dir, runTool };
    const file = (n: string) => ({ hostPath: path.join(dir, n), dest: n });
    const reopen = (image: string, command: string, files: string[]) => () =>
      runTool({ image, command, files: files.map(file), timeoutMs: 120_000 }).then((r) => {
        if (r.exitCode !== 0) throw new Error(`${command}: exit ${r.exitCode}: ${r.stderr}`);
      });
    const cases: {
      verifier: string;
      deliverable: string;
      params: Record<string, unknown>;
      app: string;
      run: () => Promise<void>;
    }[] = [
      {
        verifier: 'step.geometry',
        deliverable: 'bracket.step',
        params: { property: 'volume', expected: 18183.186, rel_tol: 0.001 },
        app: 'freecadcmd: Part.read(step).Volume',
        run: reopen(
          FREECAD,
          `printf 'import Part\\nprint(Part.read("bracket.step").Volume)\\n' > r.py && freecadcmd r.py`,
          ['bracket.step'],
        ),
      },
      {
        verifier: 'fcstd.document',
        deliverable: 'bracket.FCStd',
        params: { check: 'shape', property: 'volume', expected: 18183.186, rel_tol: 0.001 },
        app: 'freecadcmd: openDocument(FCStd), Shape.Volume',
        run: reopen(
          FREECAD,
          `printf 'import FreeCAD\\nd = FreeCAD.openDocument("/workspace/bracket.FCStd")\\nprint(d.getObject("Bracket").Shape.Volume)\\n' > r.py && freecadcmd r.py`,
          ['bracket.FCStd'],
        ),
      },
      {
        verifier: 'dxf.drawing',
        deliverable: 'plate.dxf',
        params: { check: 'dimensions', expected: [{ value: 120 }] },
        app: 'ezdxf.readfile, len(modelspace)',
        run: reopen(CLI, `python3 -c 'import ezdxf; print(len(ezdxf.readfile("plate.dxf").modelspace()))'`, [
          'plate.dxf',
        ]),
      },
      {
        verifier: 'drafting.score',
        deliverable: 'plate.dxf',
        params: {
          spec: {
            geometry: [
              {
                polyline: {
                  points: [
                    [0, 0],
                    [120, 0],
                    [120, 80],
                    [0, 80],
                  ],
                  closed: true,
                },
              },
            ],
            dimensions: [{ value: 120 }],
            annotations: ['MOUNTING PLATE'],
            layers: [{ name: 'OUTLINE', color: 7 }],
          },
        },
        app: 'ezdxf.readfile, len(modelspace)',
        run: reopen(CLI, `python3 -c 'import ezdxf; print(len(ezdxf.readfile("plate.dxf").modelspace()))'`, [
          'plate.dxf',
        ]),
      },
      {
        verifier: 'shape.similarity',
        deliverable: 'flange.stl',
        params: { reference: 'ref.stl', min_iou: 0.97 },
        app: 'prusa-slicer --info (volume, manifold)',
        run: reopen(CLI, 'prusa-slicer --info flange.stl', ['flange.stl']),
      },
    ];
    const rows: CadBenchRow[] = [];
    for (const c of cases) {
      // Parse results are cached by content: each call verifies a byte-different copy (i trailing
      // newlines) so every repeat parses afresh. A zip cannot take one, so FCStd repeats re-read the
      // archive and XML but reuse the cached BREP measurement.
      let i = 0;
      const verify = async () => {
        const copy = `${++i}-${c.deliverable}`;
        const bytes = await readFile(path.join(dir, c.deliverable));
        await writeFile(
          path.join(dir, copy),
          Buffer.concat([
            bytes,
            c.deliverable.endsWith('.FCStd') ? Buffer.alloc(0) : Buffer.from('\n'.repeat(i)),
          ]),
        );
        const v = await verifyCriterion(ctx, {
          id: 'b',
          verifier: c.verifier,
          deliverable: copy,
          role: 'check',
          params: c.params,
        });
        if (!v.passed) throw new Error(`${c.verifier} failed on its reference: ${v.reason}`);
      };
      const warm = await timed(1, verify);
      console.error(`${c.verifier}: warm-up ${warm} ms`);
      rows.push({
        verifier: c.verifier,
        inProcessMs: await timed(repeats, verify),
        appReopenMs: await timed(repeats, c.run),
        app: c.app,
      });
    }
    return rows;
  } finally {
    await stopOcct();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchCadVerifiers(Number(process.argv[2] ?? 3));
  console.log('verifier           in-process   app reopen   app');
  for (const r of rows)
    console.log(
      `${r.verifier.padEnd(18)} ${String(r.inProcessMs).padStart(7)} ms ${String(r.appReopenMs).padStart(9)} ms   ${r.app}`,
    );
}
