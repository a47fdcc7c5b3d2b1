/**
 * `yosys.equivalence`: Verilog adders proved against the eda-yosys-adder task's hidden reference and
 * synthesised by the real yosys 0.23 in a tool container; cell counts, cell types and flip-flops
 * (the PWM generator of tasks/workflows/yosys-iverilog-gatesim), and statistics reports made by
 * yosys compared with the re-synthesis. Forging attempts are in red-team-eda.test.ts.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { readYosysOutput, YosysEquivalenceParams } from '../../verifiers/eda/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { makeWithTool, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const TASK_DIR = path.resolve('tasks/starter/eda-yosys-adder');
const FIX = path.resolve('test/fixtures/eda');
const PWM = path.resolve('tasks/workflows/yosys-iverilog-gatesim/rtl/pwm.v');
const FULL_ADDERS = `module full_adder(input a, input b, input ci, output s, output co);
  assign s = a ^ b ^ ci;
  assign co = (a & b) | (ci & (a ^ b));
endmodule
module adder8(input [7:0] a, input [7:0] b, input cin, output [7:0] sum, output cout);
  wire [8:0] c;
  assign c[0] = cin;
  genvar i;
  generate for (i = 0; i < 8; i = i + 1) begin : stage
    full_adder fa(.a(a[i]), .b(b[i]), .ci(c[i]), .s(sum[i]), .co(c[i+1]));
  end endgenerate
  assign cout = c[8];
endmodule
`;

const kit = toolKit('verifiers-eda-yosys');
let dir: { path: string } & AsyncDisposable;

beforeAll(async () => {
  dir = await tempDir('yosys');
  const rca = await readFile(path.join(FIX, 'adder8_rca.v'), 'utf8');
  await writeFiles(dir.path, {
    'rca.v': rca,
    'fa.v': FULL_ADDERS,
    'csel.v': await readFile(path.join(FIX, 'adder8_csel.v'), 'utf8'),
    'behavioural.v': await readFile(path.join(TASK_DIR, 'hidden/adder8_ref.v'), 'utf8'),
    'no-cin.v': rca.replace('assign c[0] = cin;', "assign c[0] = 1'b0;"),
    'msb-flip.v': rca.replace('assign cout = c[8];', 'assign cout = ~c[8];'),
    'syntax.v': rca.replace('assign c[0] = cin;', 'assign c[0] = ;'),
    'ports.v':
      'module adder8(input [7:0] a, input [7:0] b, output [7:0] sum);\n  assign sum = a + b;\nendmodule\n',
    'other-top.v': rca.replace('module adder8', 'module add8'),
    'board.v': '(kicad_pcb (version 20211014))\n',
  });
});
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

function run(deliverable: string, params: Record<string, unknown>): Promise<Verdict> {
  return verifyCriterion(
    { artifactsDir: dir.path, taskDir: TASK_DIR, runTool: kit.runTool },
    {
      id: 'x',
      verifier: 'yosys.equivalence',
      deliverable,
      role: 'check',
      params: { top: 'adder8', ...params },
    },
  );
}
const EQUIV = { reference: 'hidden/adder8_ref.v' };
const BUDGET = { max_cells: 48 };

describe('yosys.equivalence', () => {
  it('proves the ripple-carry reference equivalent and within budget (40 cells)', async () => {
    const v = await run('rca.v', { ...EQUIV, ...BUDGET });
    expect(v, v.reason).toMatchObject({
      passed: true,
      score: 1,
      measured: { equivalent: true, unproven: 0, cells: 40 },
    });
    expect(v.reason).toMatch(
      /equivalent to the reference .*; 40 cells after synth -flatten, budget 48 → within/,
    );
  });
  it('passes a hierarchical alternative (full-adder instances, flattened for the count)', async () => {
    const v = await run('fa.v', { ...EQUIV, ...BUDGET });
    expect(v, v.reason).toMatchObject({ passed: true, measured: { cells: 40 } });
  });
  it('gate_level: passes the netlist yosys wrote after synthesis, fails RTL and a hierarchy', async () => {
    const netlist = await makeWithTool(
      kit.runTool,
      "yosys -q -p 'read_verilog b.v; synth -flatten -top adder8; write_verilog -noattr out.v'",
      { 'b.v': await readFile(path.join(TASK_DIR, 'hidden/adder8_ref.v'), 'utf8') },
      'out.v',
    );
    await writeFiles(dir.path, { 'netlist.v': netlist.toString() });
    const gl = { gate_level: true };
    const ok = await run('netlist.v', { ...gl, ...EQUIV });
    expect(ok, ok.reason).toMatchObject({
      passed: true,
      measured: { gate_level: true, modules: 1, equivalent: true },
    });
    expect(ok.reason).toMatch(/a flat gate-level netlist \(one module, 1-bit cells only\)/);
    const rtl = await run('behavioural.v', gl);
    expect(rtl).toMatchObject({ passed: false, measured: { gate_level: false, modules: 1 } });
    expect(rtl.reason).toMatch(
      /NOT a flat gate-level netlist: 1 module\(s\), multi-bit cells such as .*\$add/,
    );
    const tree = await run('fa.v', gl);
    expect(tree).toMatchObject({ passed: false, measured: { gate_level: false, modules: 2 } });
  });
  it('fails functional mutants with the number of unproven cells', async () => {
    for (const f of ['no-cin.v', 'msb-flip.v']) {
      const v = await run(f, EQUIV);
      expect(v, f).toMatchObject({ passed: false, score: 0, measured: { equivalent: false } });
      expect(v.reason).toMatch(/NOT equivalent: \d+ unproven \$equiv cell/);
    }
  });
  it('fails equivalent designs over the cell budget with the count', async () => {
    const sel = await run('csel.v', { ...EQUIV, ...BUDGET });
    expect(sel).toMatchObject({ passed: false, measured: { equivalent: true, cells: 59 } });
    expect(sel.reason).toMatch(/59 cells after synth -flatten, budget 48 → over/);
    expect((await run('behavioural.v', BUDGET)).measured).toMatchObject({ cells: 52 });
  });
  it('checks exact cell counts and counts per cell type, reporting every type', async () => {
    const ok = await run('rca.v', { cells: 40, cell_types: { $_XOR_: 7, $_XNOR_: { min: 8, max: 10 } } });
    expect(ok, ok.reason).toMatchObject({
      passed: true,
      measured: { cells: 40, flip_flops: 0, cell_types: { $_ANDNOT_: 10, $_XOR_: 7, $_XNOR_: 9 } },
    });
    expect(ok.reason).toMatch(
      /40 cells after synth -flatten, required = 40; cell types as required \(\$_AND_ 1, \$_ANDNOT_ 10/,
    );
    const wrong = await run('csel.v', { cells: { max: 45 }, cell_types: { $_XOR_: 7 } });
    expect(wrong).toMatchObject({ passed: false, measured: { cells: 59 } });
    expect(wrong.reason).toMatch(
      /59 cells after synth -flatten, required ≤ 45 → wrong cell count; wrong cell types: \$_XOR_ \d+ \(required = 7\)/,
    );
  });
  it("counts flip-flops, with the task's own synthesis script", async () => {
    await writeFiles(dir.path, { 'pwm.v': await readFile(PWM, 'utf8') });
    const script = 'chparam -set DIV 3 pwm_top; synth -flatten -top pwm_top';
    const ok = await run('pwm.v', { top: 'pwm_top', synth_script: script, flip_flops: 12 });
    expect(ok, ok.reason).toMatchObject({ passed: true, measured: { flip_flops: 12, cells: 49 } });
    expect(ok.reason).toMatch(/12 flip-flop\(s\), required = 12/);
    const more = await run('pwm.v', { top: 'pwm_top', synth_script: script, flip_flops: { max: 8 } });
    expect(more.reason).toMatch(/12 flip-flop\(s\), required ≤ 8 → wrong flip-flop count/);
    expect((await run('pwm.v', { top: 'pwm_top', synth_script: "synth -top x'; echo hi" })).reason).toMatch(
      /task error: invalid params .*synth_script/,
    );
  });
  it('reads a delivered stat report, stat -json or write_json only to compare it with the re-synthesis', async () => {
    const rca = await readFile(path.join(FIX, 'adder8_rca.v'), 'utf8');
    for (const [name, out, cmd] of [
      ['stat.txt', 'stat.txt', 'tee -q -o stat.txt stat'],
      ['stat.json', 'stat.json', 'tee -q -o stat.json stat -json'],
      ['netlist.json', 'netlist.json', 'write_json netlist.json'],
    ] as const) {
      const made = await makeWithTool(
        kit.runTool,
        `yosys -q -p 'read_verilog -sv a.v; synth -flatten -top adder8; ${cmd}'`,
        { 'a.v': rca },
        out,
      );
      await writeFiles(dir.path, { [name]: made });
      const v = await run('rca.v', { report: name });
      expect(v, v.reason).toMatchObject({
        passed: true,
        measured: { cells: 40, report: { cells: 40, agrees: true } },
      });
      expect(v.reason).toMatch(
        new RegExp(`report ${name} \\(.*\\) agrees with the re-synthesis \\(40 cells\\)`),
      );
      // The same report beside another design does not describe it.
      const other = await run('csel.v', { report: name });
      expect(other).toMatchObject({
        passed: false,
        measured: { cells: 59, report: { cells: 40, agrees: false } },
      });
      expect(other.reason).toMatch(/does not describe csel.v: it claims 40 cells, re-synthesis .* gives 59/);
    }
    expect((await run('rca.v', { report: 'none.txt' })).reason).toMatch(/report none.txt is missing/);
    expect((await run('rca.v', { report: 'fa.v' })).reason).toMatch(
      /report fa.v is not a yosys statistics report/,
    );
  });
  it('fails designs yosys cannot read, with the yosys error', async () => {
    const syn = await run('syntax.v', EQUIV);
    expect(syn).toMatchObject({ passed: false, score: 0 });
    expect(syn.reason).toMatch(/yosys cannot read syntax.v with top adder8: .*syntax error/i);
    expect((await run('other-top.v', EQUIV)).reason).toMatch(
      /cannot read other-top.v with top adder8: .*adder8/,
    );
    expect((await run('board.v', BUDGET)).reason).toMatch(/yosys cannot read board.v/);
  });
  it('fails a design whose ports do not match the reference', async () => {
    const v = await run('ports.v', EQUIV);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(/NOT equivalent/);
  });
  it('fails missing designs and references, and needs reference or max_cells', async () => {
    expect((await run('none.v', EQUIV)).reason).toBe('deliverable none.v is missing');
    expect((await run('rca.v', { reference: 'hidden/nope.v' })).reason).toMatch(
      /task error: reference hidden\/nope.v/,
    );
    expect(YosysEquivalenceParams.safeParse({ top: 'adder8' }).success).toBe(false);
  });
});

describe('readYosysOutput', () => {
  const m = (s: string) => `@@ENGILOOP-${s}-ab12@@`;
  it('reads only the markers sealed with the nonce', () => {
    expect(readYosysOutput(`${m('EQUIV-EXIT')} 0\n${m('SYNTH-EXIT')} 0\n`, 'ab12')).toEqual({
      equivalent: true,
      synth: { exit: 0 },
    });
    expect(
      readYosysOutput(
        `${m('EQUIV-EXIT')} 1\nERROR: Found 9 unproven $equiv cells in 'equiv_status -assert'.\n`,
        'ab12',
      ),
    ).toEqual({ equivalent: false, unproven: 9 });
    expect(readYosysOutput(`${m('GATE-EXIT')} 0 1 modules:\n`, 'ab12')).toEqual({
      gate: { modules: 1, wide: [] },
    });
    expect(
      readYosysOutput(`${m('GATE-EXIT')} 1 3 modules:\ntop/$add$x.v:8$14\ntop/$eq$x.v:5$11\n`, 'ab12'),
    ).toEqual({ gate: { modules: 3, wide: ['top/$add$x.v:8$14', 'top/$eq$x.v:5$11'] } });
    expect(readYosysOutput(`${m('READ-FAILED')}\nERROR: syntax error\n`, 'ab12').readError).toBe(
      'ERROR: syntax error',
    );
    // A marker with another nonce (or none) is not read.
    expect(readYosysOutput('@@ENGILOOP-EQUIV-EXIT@@ 0\n@@ENGILOOP-EQUIV-EXIT-ffff@@ 0\n', 'ab12')).toEqual(
      {},
    );
  });
});
