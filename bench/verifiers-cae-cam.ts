/**
 * CAE/CAM verifiers against the authoring apps: for each verifier, the time to verify its reference
 * artifact in process (our parser) and the time the app itself takes to reopen the same file inside
 * the tool container (gmsh reading the .msh, ccx re-solving the deck, a python G-code reader —
 * prusa-slicer cannot read G-code back). App times are measured inside the container (`time`), so
 * container start-up (≈ 1 s) is left out of both columns.
 *
 * Run directly: `npx tsx bench/verifiers-cae-cam.ts` prints a table.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import Docker from 'dockerode';
import { createRunTool, DockerSandboxProvider } from '../actors/sandbox/index.js';
import { verifyCriterion, type CriterionToVerify, type RunTool } from '../verifiers/index.js';

const IMAGE = 'engiloop/cli:latest';
const REPEAT = 5;

/** The cantilever and deck the calculix.result tests use (one source for both). */
const FIXTURES = path.join(import.meta.dirname, '../test/fixtures/cae');
const SCAD =
  'difference() { cube([40, 30, 12]); translate([20, 15, -1]) cylinder(d = 12, h = 14, $fn = 64); }\n';
/** A plain G-code reader (python) standing in for the slicer reopening its own output. */
const GCODE_PY = `import re, sys
e = moves = ext = 0; zs = set()
for line in open(sys.argv[1]):
    code = line.split(';', 1)[0]
    if not code.strip(): continue
    w = dict((m.group(1), float(m.group(2))) for m in re.finditer(r'([A-Z])([-+]?[0-9.]+)', code))
    if w.get('G') in (0, 1):
        moves += 1
        if 'E' in w:
            if w['E'] > e: ext += w['E'] - e; zs.add(w.get('Z'))
            e = w['E']
    elif w.get('G') == 92 and 'E' in w: e = w['E']
print(moves, round(ext, 2))
`;

/** One row of the benchmark. */
export interface CaeCamBenchRow {
  verifier: string;
  /** Median in-process verify time of the reference artifact, ms. */
  inProcessMs: number;
  /** Median time of the app reopening the same artifact inside the container, ms. */
  appReopenMs: number;
  app: string;
}

async function median(n: number, f: () => Promise<number>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await f());
  xs.sort((a, b) => a - b);
  return Math.round(xs[Math.floor(n / 2)]! * 10) / 10;
}

/** Times `command` inside the container with bash's `time` (ms), after copying `files` in. */
async function appTime(runTool: RunTool, dir: string, files: string[], command: string): Promise<number> {
  const r = await runTool({
    image: IMAGE,
    command: `TIMEFORMAT=%R; { time ${command} >/dev/null 2>&1 ; } 2>&1 | tail -1`,
    files: files.map((f) => ({ hostPath: path.join(dir, f), dest: f })),
    timeoutMs: 120_000,
  });
  const s = Number(r.stdout.trim());
  if (!Number.isFinite(s)) throw new Error(`${command}: ${r.stdout}${r.stderr}`);
  return s * 1000;
}

/**
 * Per CAE/CAM verifier: in-process verify time of its reference artifact against the authoring app
 * reopening the same file. Needs Docker and the local `engiloop/cli:latest` image.
 */
export async function benchCaeCamVerifiers(): Promise<CaeCamBenchRow[]> {
  const provider = new DockerSandboxProvider({ docker: new Docker() });
  const runTool = createRunTool(provider, { memoryMb: 1024 });
  const dir = await mkdtemp(path.join(tmpdir(), 'engiloop-bench-caecam-'));
  try {
    await copyFile(path.join(FIXTURES, 'beam.geo'), path.join(dir, 'beam.geo'));
    await copyFile(path.join(FIXTURES, 'deck.py'), path.join(dir, 'deck.py'));
    await writeFile(path.join(dir, 'part.scad'), SCAD);
    await writeFile(path.join(dir, 'read.py'), GCODE_PY);
    const made = await runTool({
      image: IMAGE,
      command: [
        'gmsh beam.geo -3 -o beam.msh >/dev/null && gmsh beam.geo -3 -format inp -o mesh.inp >/dev/null',
        'python3 deck.py beam 210000 static && OMP_NUM_THREADS=1 ccx -i beam >/dev/null',
        'openscad -o part.stl part.scad 2>/dev/null',
        'prusa-slicer --export-gcode --layer-height 0.2 --fill-density 15% --center 100,100 -o part.gcode part.stl >/dev/null',
      ].join(' && '),
      files: ['beam.geo', 'deck.py', 'part.scad'].map((f) => ({ hostPath: path.join(dir, f), dest: f })),
      timeoutMs: 180_000,
      collect: ['beam.msh', 'beam.inp', 'beam.frd', 'part.gcode'],
    });
    for (const [name, bytes] of Object.entries(made.files)) await writeFile(path.join(dir, name), bytes);
    if (made.files['part.gcode'] === undefined) throw new Error(`reference artifacts failed: ${made.stderr}`);
    const ctx = { artifactsDir: dir, taskDir: dir, runTool };
    const inProcess = (c: CriterionToVerify) =>
      median(REPEAT, async () => {
        const t = performance.now();
        const v = await verifyCriterion(ctx, c);
        if (!v.passed) throw new Error(`${c.verifier} failed its reference: ${v.reason}`);
        return performance.now() - t;
      });
    const app = (files: string[], cmd: string) => median(3, () => appTime(runTool, dir, files, cmd));
    const base = { id: 'bench', role: 'check' as const };
    const tipZ = {
      quantity: 'displacement',
      region: { min: [99.99, -1, -1], max: [100.01, 11, 11] },
      component: 'z',
      target: -0.19048,
    };
    return [
      {
        verifier: 'mesh.check',
        inProcessMs: await inProcess({
          ...base,
          verifier: 'mesh.check',
          deliverable: 'beam.msh',
          params: { order: 2, groups: ['fixed', 'tip'] },
        }),
        appReopenMs: await app(['beam.msh'], 'gmsh beam.msh -0 -o copy.msh'),
        app: 'gmsh 4.8 reads and re-saves beam.msh',
      },
      {
        verifier: 'calculix.result (trust_results: parse only)',
        inProcessMs: await inProcess({
          ...base,
          verifier: 'calculix.result',
          deliverable: 'beam.frd',
          params: { ...tipZ, trust_results: true },
        }),
        appReopenMs: await app(['beam.inp'], 'OMP_NUM_THREADS=1 ccx -i beam'),
        app: 'ccx 2.20 re-solves beam.inp',
      },
      {
        // The default: the delivered deck is solved again and the .frd compared with the fresh one.
        verifier: 'calculix.result (default: re-solve + compare)',
        // Solves are cached by deck content, so each repeat gets a deck that differs by a comment.
        inProcessMs: await (async () => {
          const deck = await readFile(path.join(dir, 'beam.inp'), 'utf8');
          let k = 0;
          const c = { ...base, verifier: 'calculix.result', deliverable: 'beam.frd', params: tipZ };
          const ms = await median(REPEAT, async () => {
            await writeFile(path.join(dir, 'beam.inp'), `${deck}** bench ${++k}\n`);
            const t = performance.now();
            const v = await verifyCriterion(ctx, c);
            if (!v.passed) throw new Error(`calculix.result failed its reference: ${v.reason}`);
            return performance.now() - t;
          });
          await writeFile(path.join(dir, 'beam.inp'), deck);
          return ms;
        })(),
        appReopenMs: await app(['beam.inp'], 'OMP_NUM_THREADS=1 ccx -i beam'),
        app: 'ccx 2.20 re-solves beam.inp',
      },
      {
        verifier: 'gcode.check',
        inProcessMs: await inProcess({
          ...base,
          verifier: 'gcode.check',
          deliverable: 'part.gcode',
          params: { check: 'extruded_volume', range: { max: 9000 } },
        }),
        appReopenMs: await app(['part.gcode', 'read.py'], 'python3 read.py part.gcode'),
        app: 'python3 G-code reader (PrusaSlicer 2.5 cannot load G-code)',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchCaeCamVerifiers();
  console.table(rows);
}
