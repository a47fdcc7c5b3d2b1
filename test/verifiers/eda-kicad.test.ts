/**
 * `kicad.board`: boards built by the real pcbnew (KiCad 6 Python API) in the kicad image, checked
 * in-process (netlist F1, outline, layers, footprints) and by KiCad's own DRC in a fresh container,
 * recomputed whatever a delivered report says. Forging attempts are in red-team-eda.test.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { compareNetlists, KICAD_IMAGE, parseDrcReport, runDrc } from '../../verifiers/eda/index.js';
import { verifyCriterion, type RunTool, type Verdict } from '../../verifiers/index.js';
import { tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const SCRIPT = path.resolve('test/fixtures/eda/make_board.py');
const GND_TRACK = "track('GND', (114, 114), (105, 114))\n";
const NETS = { VIN: ['J1.1', 'R1.1'], MID: ['J1.2', 'R1.2', 'R2.1'], GND: ['J1.3', 'R2.2'] };
const ALL = {
  drc: {},
  netlist: { nets: NETS },
  board: { width_mm: 30, height_mm: 20, copper_layers: 2, footprints: 3 },
};

/** GND on the bottom layer between two vias: another valid routing. */
const VIA_GND = `track('GND', (114, 114), (112, 116))
track('GND', (105, 114), (107, 116))
for x in (112, 107):
    v = pcbnew.PCB_VIA(board)
    v.SetPosition(pt(x, 116))
    v.SetDrill(MM(0.4))
    v.SetWidth(MM(0.8))
    v.SetLayerPair(pcbnew.F_Cu, pcbnew.B_Cu)
    v.SetNet(nets['GND'])
    board.Add(v)
t = pcbnew.PCB_TRACK(board)
t.SetStart(pt(112, 116))
t.SetEnd(pt(107, 116))
t.SetWidth(MM(0.25))
t.SetLayer(pcbnew.B_Cu)
t.SetNet(nets['GND'])
board.Add(t)
`;

const kit = toolKit('verifiers-eda-kicad');
let dir: { path: string } & AsyncDisposable;

/** Runs a pcbnew board script in the kicad image and returns the board it saves. */
async function makeBoard(runTool: RunTool, script: string): Promise<Buffer> {
  await using src = await tempDir('kicad-src');
  await writeFiles(src.path, { 'make_board.py': script });
  const r = await runTool({
    image: KICAD_IMAGE,
    command: 'HOME=/tmp /usr/bin/python3 make_board.py',
    files: [{ hostPath: path.join(src.path, 'make_board.py'), dest: 'make_board.py' }],
    timeoutMs: 60_000,
    collect: ['board.kicad_pcb'],
  });
  const out = r.files['board.kicad_pcb'];
  if (out === undefined) throw new Error(`pcbnew made no board (exit ${r.exitCode}): ${r.stderr}${r.stdout}`);
  return out;
}

beforeAll(async () => {
  dir = await tempDir('kicad');
  const script = await readFile(SCRIPT, 'utf8');
  const ref = await makeBoard(kit.runTool, script);
  const text = ref.toString('utf8');
  await writeFiles(dir.path, {
    'ref.kicad_pcb': ref,
    'missing.kicad_pcb': await makeBoard(kit.runTool, script.replace(GND_TRACK, '')),
    'short.kicad_pcb': await makeBoard(
      kit.runTool,
      script.replace(GND_TRACK, `${GND_TRACK}track('GND', (114, 114), (114, 109))\n`),
    ),
    'via.kicad_pcb': await makeBoard(kit.runTool, script.replace(GND_TRACK, VIA_GND)),
    // Same copper, but R2's pads swapped between nets in the file: a netlist error.
    'renamed.kicad_pcb': text.replaceAll('"VIN"', '"SUPPLY"').replaceAll('"GND"', '"0V"'),
    'wrong-net.kicad_pcb': text.replace(/(\(at 1 0\) \(size 1 1\.2\)[^\n]*\n\s*\(net )2 "MID"/, '$13 "GND"'),
    'truncated.kicad_pcb': text.slice(0, Math.floor(text.length / 2)),
    'garbage.kicad_pcb': Buffer.from([0, 159, 146, 150, 10]),
    'step.kicad_pcb': 'ISO-10303-21;\nHEADER;\nENDSEC;\nEND-ISO-10303-21;\n',
  });
  await writeFile(path.join(dir.path, 'empty.kicad_pcb'), '');
});
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

function run(deliverable: string, params: Record<string, unknown> = ALL): Promise<Verdict> {
  return verifyCriterion(
    { artifactsDir: dir.path, taskDir: dir.path, runTool: kit.runTool },
    { id: 'x', verifier: 'kicad.board', deliverable, role: 'check', params },
  );
}

describe('kicad.board', () => {
  it('passes the reference board: DRC clean, netlist F1 1, 30 × 20 mm, 2 layers, 3 footprints', async () => {
    const v = await run('ref.kicad_pcb');
    expect(v, v.reason).toMatchObject({
      passed: true,
      score: 1,
      measured: {
        drc: { violations: 0, unconnected: 0 },
        netlist: { f1: 1 },
        board: { width_mm: 30, height_mm: 20, copper_layers: 2, footprints: 3, tracks: 5 },
      },
    });
  });
  it('passes a board whose nets have other names (only pin sets count)', async () => {
    const v = await run('renamed.kicad_pcb', { netlist: { nets: NETS } });
    expect(v, v.reason).toMatchObject({ passed: true, measured: { netlist: { f1: 1 } } });
  });
  it('passes a board routed differently (GND on B.Cu through two vias)', async () => {
    const v = await run('via.kicad_pcb');
    expect(v, v.reason).toMatchObject({
      passed: true,
      measured: { drc: { violations: 0 }, board: { vias: 2, tracks: 7 } },
    });
  });
  it('fails a missing track on unconnected items, and nothing else', async () => {
    const v = await run('missing.kicad_pcb');
    expect(v).toMatchObject({
      passed: false,
      measured: { drc: { violations: 0, unconnected: 1 }, netlist: { f1: 1 } },
    });
    expect(v.reason).toMatch(
      /FAIL DRC \(pcbnew, recomputed\): 0 violation\(s\) .*, 1 unconnected item\(s\) \(allowed 0\): .*Pad 3 \[GND\] of J1/,
    );
    expect(v.score).toBeCloseTo(2 / 3);
  });
  it('fails a short between nets as DRC violations', async () => {
    const v = await run('short.kicad_pcb', { drc: {} });
    expect(v.passed).toBe(false);
    const drc = (v.measured as { drc: { violations: number; first: string[] } }).drc;
    expect(drc.violations).toBeGreaterThan(0);
    expect(drc.first.join(' ')).toMatch(/shorting_items|clearance/);
  });
  it('compares a delivered DRC report with the recomputed one (never the evidence)', async () => {
    // The report pcbnew itself wrote for the board: it agrees.
    const rpt = await runDrc(kit.runTool, path.join(dir.path, 'missing.kicad_pcb'), {
      image: KICAD_IMAGE,
      timeoutMs: 60_000,
    });
    if (!rpt.ok) throw new Error(rpt.reason);
    await writeFiles(dir.path, { 'missing-drc.rpt': rpt.report });
    const v = await run('missing.kicad_pcb', { drc: { max_unconnected: 1, report: 'missing-drc.rpt' } });
    expect(v, v.reason).toMatchObject({
      passed: true,
      measured: { drc: { unconnected: 1 }, drc_report: { violations: 0, unconnected: 1 } },
    });
    expect(v.reason).toMatch(/ok delivered DRC report missing-drc.rpt agrees with the recomputed DRC/);
    const gone = await run('ref.kicad_pcb', { drc: { report: 'nope.rpt' } });
    expect(gone.reason).toMatch(/FAIL DRC report nope.rpt is missing/);
    const notReport = await run('ref.kicad_pcb', { drc: { report: 'step.kicad_pcb' } });
    expect(notReport.reason).toMatch(/FAIL DRC report step.kicad_pcb is not a KiCad DRC report/);
  });
  it('runs DRC with the default rules: a net class written into the board is removed first', async () => {
    // KiCad 6 keeps net classes in the project; one in the board file with the default values is
    // harmless, and DRC still runs on the board without it.
    const nc =
      '  (net_class "Default" "" (clearance 0.2) (trace_width 0.25) (via_dia 0.8) (via_drill 0.4) (uvia_dia 0.3) (uvia_drill 0.1) (add_net "GND"))\n';
    const text = (await readFile(path.join(dir.path, 'ref.kicad_pcb'), 'utf8')).replace(
      '  (net 0 "")',
      `${nc}  (net 0 "")`,
    );
    await writeFiles(dir.path, { 'netclass.kicad_pcb': text });
    const v = await run('netclass.kicad_pcb', { drc: {} });
    expect(v, v.reason).toMatchObject({ passed: true, measured: { drc: { violations: 0, unconnected: 0 } } });
  });
  it('fails a pad on the wrong net with the netlist F1 and the pins', async () => {
    const v = await run('wrong-net.kicad_pcb', { netlist: { nets: NETS } });
    expect(v.passed).toBe(false);
    expect(v.score).toBeLessThan(1);
    expect(v.reason).toMatch(/netlist F1 0\.\d+ .*wrong or missing net: .*R/);
  });
  it('fails wrong board facts with the measured values', async () => {
    const v = await run('ref.kicad_pcb', { board: { width_mm: 40, copper_layers: 4, footprints: 3 } });
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(/width 30.00 mm, expected 40 ± 0.1, 2 copper layers, expected 4/);
  });
  it.each([
    ['truncated.kicad_pcb', /not a valid S-expression \(truncated or corrupt\)/],
    ['garbage.kicad_pcb', /^garbage.kicad_pcb: is not a KiCad board/],
    ['step.kicad_pcb', /^step.kicad_pcb: is not a KiCad board/],
    ['empty.kicad_pcb', /deliverable empty.kicad_pcb is empty/],
  ])('fails %s with the reason', async (file, why) => {
    const v = await run(file);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(why);
  });
});

describe('netlist and report helpers', () => {
  it('scores pin↔net pairs by pin sets', () => {
    expect(compareNetlists([['A.1', 'B.1'], ['A.2']], [['B.1', 'A.1'], ['A.2']]).f1).toBe(1);
    const m = compareNetlists(
      [
        ['A.1', 'B.1', 'C.1'],
        ['A.2', 'B.2'],
      ],
      [
        ['A.1', 'B.1'],
        ['C.1', 'A.2', 'B.2'],
      ],
    );
    expect(m.f1).toBe(0);
    expect(compareNetlists([['A.1', 'B.1']], []).f1).toBe(0);
  });
  it('reads a DRC report', () => {
    const r = parseDrcReport(
      '** Found 2 DRC violations **\n[clearance]: Clearance violation\n    Rule: x; Severity: error\n    @(1 mm, 2 mm): Track\n[silk_overlap]: Silkscreen overlap\n    Rule: y; Severity: warning\n\n** Found 1 unconnected pads **\n[unconnected_items]: Missing connection between items\n    Local override; Severity: error\n    @(1 mm, 1 mm): Pad 1\n\n** End of Report **\n',
    );
    expect(r).toMatchObject({ violations: { error: 1, warning: 1 }, violationTotal: 2, unconnected: 1 });
    expect(parseDrcReport('nothing')).toBeUndefined();
  });
});
