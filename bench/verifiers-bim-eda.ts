/**
 * BIM and EDA verifiers: time to verify each one's reference artifact, against an app reopening
 * the same file in a fresh tool container (what a verifier built on the app would pay).
 *   - ifc.model: web-ifc in-process (parse, relations, meshes) vs python3 reading the STEP text in
 *     engiloop/cli (no Debian app reads IFC, so a plain STEP reader is the baseline).
 *   - kicad.board (netlist + facts): S-expression parse in-process vs pcbnew.LoadBoard (kicad image).
 *   - kicad.board (DRC): the whole verify with pcbnew's DRC vs the same LoadBoard alone.
 *   - yosys.equivalence: the verify (equivalence proof + synthesis, itself a yosys run) vs yosys
 *     only reading the design.
 * Each number is the median of `repeat` runs after one warm-up. Run: `npx tsx bench/verifiers-bim-eda.ts [repeat]`.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createRunTool, DockerSandboxProvider } from '../actors/sandbox/index.js';
import { KICAD_IMAGE } from '../verifiers/eda/index.js';
import {
  verifyCriterion,
  type CriterionToVerify,
  type RunTool,
  type ToolRequest,
} from '../verifiers/index.js';

/** One verifier's timings, in ms. */
export interface BimEdaBenchRow {
  verifier: string;
  inProcessMs: number;
  appReopenMs: number;
  app: string;
}

const CLI = 'engiloop/cli:latest';
const FIX = path.resolve('test/fixtures');

async function median(repeat: number, f: () => Promise<unknown>): Promise<number> {
  await f();
  const t: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const s = performance.now();
    await f();
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)]!;
}

/** Times every BIM/EDA verifier against an app reopening its reference artifact. */
export async function benchBimEdaVerifiers(
  opts: { repeat?: number; runTool?: RunTool } = {},
): Promise<BimEdaBenchRow[]> {
  const repeat = opts.repeat ?? 5;
  const runTool = opts.runTool ?? createRunTool(new DockerSandboxProvider());
  const verify = (dir: string, c: CriterionToVerify) => async () => {
    const v = await verifyCriterion({ artifactsDir: dir, taskDir: dir, runTool }, c);
    if (!v.passed) throw new Error(`${c.verifier} failed its reference artifact: ${v.reason}`);
  };
  const reopen = (req: Omit<ToolRequest, 'timeoutMs'>) => async () => {
    const r = await runTool({ ...req, timeoutMs: 120_000 });
    if (r.exitCode !== 0) throw new Error(`${req.command} exited ${r.exitCode}: ${r.stderr}`);
  };
  const bim = path.join(FIX, 'bim');
  const eda = path.join(FIX, 'eda');
  const board = { hostPath: path.join(eda, 'board.kicad_pcb'), dest: 'board.kicad_pcb' };
  const loadBoard = reopen({
    image: KICAD_IMAGE,
    command: `HOME=/tmp /usr/bin/python3 -c "import pcbnew; b = pcbnew.LoadBoard('board.kicad_pcb'); print(len(b.GetFootprints()))"`,
    files: [board],
  });
  const nets = { VIN: ['J1.1', 'R1.1'], MID: ['J1.2', 'R1.2', 'R2.1'], GND: ['J1.3', 'R2.2'] };
  const crit = (
    verifier: string,
    deliverable: string,
    params: Record<string, unknown>,
  ): CriterionToVerify => ({
    id: 'bench',
    verifier,
    deliverable,
    role: 'check',
    params,
  });
  return [
    {
      verifier: 'ifc.model',
      app: 'python3 STEP reader (engiloop/cli)',
      inProcessMs: await median(
        repeat,
        verify(
          bim,
          crit('ifc.model', 'office-door.ifc', {
            elements: [
              {
                select: { type: 'IfcDoor', name: 'D-01' },
                storey: 'Level 0',
                fills_opening_in: 'L0-W-South',
                bbox_size: [0.9, 2.1, 0.05],
              },
              {
                select: { type: 'IfcWall', storey: 'Level 1' },
                count: { equals: 4 },
                properties: { 'Pset_WallCommon.FireRating': 'EI30' },
              },
            ],
            untouched: { reference: 'office.ifc', except: ['L0-W-South'] },
          }),
        ),
      ),
      appReopenMs: await median(
        repeat,
        reopen({
          image: CLI,
          command: `python3 -c "import re; t = open('office-door.ifc').read(); print(len(re.findall(r'^#\\d+=', t, re.M)))"`,
          files: [{ hostPath: path.join(bim, 'office-door.ifc'), dest: 'office-door.ifc' }],
        }),
      ),
    },
    {
      verifier: 'kicad.board (netlist + facts)',
      app: 'pcbnew.LoadBoard (engiloop/kicad)',
      inProcessMs: await median(
        repeat,
        verify(
          eda,
          crit('kicad.board', 'board.kicad_pcb', {
            netlist: { nets },
            board: { width_mm: 30, height_mm: 20, copper_layers: 2, footprints: 3 },
          }),
        ),
      ),
      appReopenMs: await median(repeat, loadBoard),
    },
    {
      verifier: 'kicad.board (DRC, container)',
      app: 'pcbnew.LoadBoard (engiloop/kicad)',
      inProcessMs: await median(repeat, verify(eda, crit('kicad.board', 'board.kicad_pcb', { drc: {} }))),
      appReopenMs: await median(repeat, loadBoard),
    },
    {
      verifier: 'yosys.equivalence (container)',
      app: 'yosys read_verilog + hierarchy (engiloop/cli)',
      inProcessMs: await median(
        repeat,
        verify(
          eda,
          crit('yosys.equivalence', 'adder8_rca.v', {
            top: 'adder8',
            reference: 'adder8_rca.v',
            max_cells: 48,
          }),
        ),
      ),
      appReopenMs: await median(
        repeat,
        reopen({
          image: CLI,
          command: "yosys -q -p 'read_verilog -sv adder8_rca.v; hierarchy -check -top adder8'",
          files: [{ hostPath: path.join(eda, 'adder8_rca.v'), dest: 'adder8_rca.v' }],
        }),
      ),
    },
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await benchBimEdaVerifiers({ repeat: Number(process.argv[2] ?? 5) });
  const w = Math.max(...rows.map((r) => r.verifier.length));
  console.log(`${'verifier'.padEnd(w)}  ${'verify ms'.padStart(10)}  ${'app ms'.padStart(8)}  app`);
  for (const r of rows)
    console.log(
      `${r.verifier.padEnd(w)}  ${r.inProcessMs.toFixed(1).padStart(10)}  ${r.appReopenMs.toFixed(1).padStart(8)}  ${r.app}`,
    );
}
