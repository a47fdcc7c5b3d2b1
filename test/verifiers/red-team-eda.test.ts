/**
 * Red team for the EDA verifiers: each test is a real artifact (judged by the real iverilog, ngspice,
 * yosys or pcbnew in a tool container) that tries to pass while being wrong, and must fail with a
 * reason that names the attempt. Where it shows the attempt is real, the same artifact is first run
 * the naive way (the testbench unsealed, the netlist simulated as delivered, DRC without the check)
 * to see it forge the number.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { KICAD_IMAGE, runDrc } from '../../verifiers/eda/index.js';
import { verifierRules, verifyCriterion, type RunTool, type Verdict } from '../../verifiers/index.js';
import { CLI_IMAGE } from '../helpers/docker.js';
import { makeWithTool, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const kit = toolKit('verifiers-red-team-eda');
let dir: { path: string } & AsyncDisposable;
const tasks: Record<string, LoadedTask> = {};

beforeAll(async () => {
  dir = await tempDir('red-team-eda');
  for (const t of [
    'starter/verilog-counter',
    'starter/ngspice-rc-lowpass',
    'open-ended/lowpass-filter',
    'starter/eda-yosys-adder',
  ])
    tasks[t] = await loadTask(path.resolve('tasks', t), { verifiers: verifierRules });
});
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

/** Verifies `file` (written into the artifacts folder) with criterion `id` of task `t`. */
async function judge(
  t: string,
  id: string,
  file: string,
  content: string | Buffer,
  params: Record<string, unknown> = {},
): Promise<Verdict> {
  const lt = tasks[t]!;
  const c = lt.task.criteria.find((x) => x.id === id)!;
  await writeFiles(dir.path, { [file]: content });
  return verifyCriterion(
    { artifactsDir: dir.path, taskDir: lt.dir, runTool: kit.runTool },
    { id, verifier: c.verifier, deliverable: file, role: c.role, params: { ...c.params, ...params } },
  );
}

/** Runs `command` in the cli image on `files`; returns stdout. */
async function naive(runTool: RunTool, command: string, files: Record<string, string>): Promise<string> {
  await using src = await tempDir('naive');
  await writeFiles(src.path, files);
  const r = await runTool({
    image: CLI_IMAGE,
    command,
    files: Object.keys(files).map((f) => ({ hostPath: path.join(src.path, f), dest: f })),
    timeoutMs: 60_000,
  });
  return r.stdout + r.stderr;
}

// --- verilog.testbench: the counter of tasks/starter/verilog-counter ------------------------------

const HEADER = 'module counter(input clk, input rst, input en, output reg [3:0] q, output tc);';
/** Wrong: counts on every clock whatever en is, and tc ignores en (most checks fail). */
const WRONG = `${HEADER}
  assign tc = (q == 4'd9);
  always @(posedge clk)
    if (rst) q <= 4'd0;
    else q <= (q == 4'd9) ? 4'd0 : q + 4'd1;
`;
const VERILOG = 'starter/verilog-counter';

describe('red team: verilog.testbench', () => {
  it("force tb.passed = tb.total (the issue's attack) fails, naming the forced testbench signal", async () => {
    const attack = `${WRONG}  initial force tb_counter.passed = tb_counter.total;\nendmodule\n`;
    // The attack is real: against the testbench as written, the wrong design reports every check passed.
    const tb = await readFile(path.join(tasks[VERILOG]!.dir, 'hidden/tb_counter.v'), 'utf8');
    const out = await naive(
      kit.runTool,
      'iverilog -g2012 -s tb_counter -o sim tb.v counter.v && vvp -n sim',
      {
        'tb.v': tb,
        'counter.v': attack,
      },
    );
    const [, p, t] = /RESULT (\d+)\/(\d+)/.exec(out)!;
    expect(p).toBe(t);
    expect(out).toMatch(/^FAIL \d+/m);
    const v = await judge(VERILOG, 'testbench', 'force.v', attack);
    expect(v).toMatchObject({
      passed: false,
      score: 0,
      measured: { refused: 'force tb_counter.passed', line: 6 },
    });
    expect(v.reason).toBe(
      'force.v: design drives testbench signal tb_counter.passed (force, line 6), outside its own modules',
    );
  });

  it("copying the testbench's reference model fails, naming the signal it reads", async () => {
    const attack = `module counter(input clk, input rst, input en, output [3:0] q, output tc);
  assign q = tb_counter.model;
  assign tc = en && (q == 4'd9);
endmodule
`;
    const v = await judge(VERILOG, 'testbench', 'copy-model.v', attack);
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /design refers to testbench signal tb_counter.model \(line 2\), outside its own modules/,
    );
  });

  it('a $root reference into the testbench fails, naming it', async () => {
    const v = await judge(
      VERILOG,
      'testbench',
      'root.v',
      `${WRONG}  always @* $root.tb_counter.passed = $root.tb_counter.total;\nendmodule\n`,
    );
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /design refers to \$root.tb_counter.passed \(line 6\): a name from the top of the simulation/,
    );
  });

  it('reading the hidden testbench file with $fopen fails, naming the file I/O', async () => {
    const attack = `${WRONG}  integer f;\n  initial f = $fopen("engiloop_tb.v", "r");\nendmodule\n`;
    const v = await judge(VERILOG, 'testbench', 'fopen.v', attack);
    expect(v.reason).toMatch(/design calls \$fopen \(line 7\): file I\/O could read the hidden testbench/);
  });

  it('a force hidden behind a macro is caught by compiling the design on its own', async () => {
    const attack = `\`define BENCH tb_counter\n${WRONG}  initial force \`BENCH.passed = \`BENCH.total;\nendmodule\n`;
    const v = await judge(VERILOG, 'testbench', 'macro.v', attack);
    expect(v).toMatchObject({ passed: false, measured: { refused: 'tb_counter.passed' } });
    expect(v.reason).toMatch(
      /macro.v: design drives tb_counter.passed, outside its own modules \(iverilog, compiled without the testbench: macro.v:7: error: Could not find variable/,
    );
  });

  it("calling the testbench's own check task by its simple name fails, naming the task", async () => {
    const v = await judge(
      VERILOG,
      'testbench',
      'task.v',
      `${WRONG}  initial repeat (50) #7 check;\nendmodule\n`,
    );
    expect(v.reason).toMatch(
      /design calls task check, outside its own modules \(iverilog, compiled without the testbench/,
    );
  });

  it('bind into the testbench fails, naming bind', async () => {
    // spy, bound into the testbench, would call its check task by name (upward, as tasks resolve).
    const attack = `${WRONG}endmodule\nmodule spy; initial repeat (500) #3 check; endmodule\nbind tb_counter spy s();\n`;
    const v = await judge(VERILOG, 'testbench', 'bind.v', attack);
    expect(v).toMatchObject({ passed: false, measured: { refused: 'bind', line: 8 } });
    expect(v.reason).toMatch(
      /bind.v: design uses bind \(line 8\): it would insert code into other modules, such as the testbench/,
    );
  });

  it('printing RESULT lines (even with a guessed seal) and ending early fails, naming the unsealed lines', async () => {
    const attack = `${WRONG}  initial begin
    #60 $display("RESULT 137/137");
    $display("RESULT-0123456789abcdef 137/137");
    $finish;
  end
endmodule
`;
    const v = await judge(VERILOG, 'testbench', 'print.v', attack, { design_may_print: true });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(
      /never printed its RESULT line: the simulation ended before the testbench finished .*ignored 2 line\(s\) the testbench did not print \(no seal\), e.g. "RESULT 137\/137"/,
    );
  });
});

// --- spice.measure -----------------------------------------------------------------------------

const HIGHPASS = '* hp\nV1 in 0 DC 0 AC 1\nC1 in out 100n\nR1 out 0 1.59k\n';
const F3DB_CONTROL = 'ac dec 200 1 1meg\nmeas ac f3db WHEN vdb(out)=-3.0103 FALL=1\n';

/** Three RC poles at 3.92 kHz (−3 dB at 2 kHz), isolated by ideal buffers of kind `k` (B or E). */
const buffered = (k: 'B' | 'E'): string => {
  const buf = (n: number, from: string, to: string) =>
    k === 'B' ? `B${n} ${to} 0 V=V(${from})` : `E${n} ${to} 0 ${from} 0 1`;
  return [
    `* three buffered RC sections (${k} sources)`,
    'V1 in 0 DC 0 AC 1',
    'R1 in n1 1k',
    'C1 n1 0 40.57n',
    buf(1, 'n1', 'b1'),
    'R2 b1 n2 1k',
    'C2 n2 0 40.57n',
    buf(2, 'n2', 'b2'),
    'R3 b2 n3 1k',
    'C3 n3 0 40.57n',
    buf(3, 'n3', 'out'),
    'RL out 0 1k',
    '.end',
    '',
  ].join('\n');
};

describe('red team: spice.measure', () => {
  it('.csparam supplying the measurement fails, naming .csparam', async () => {
    const attack = `${HIGHPASS}.csparam f3db=1000\n.end\n`;
    // The attack is real: the measurement fails on a high-pass, and print finds the .csparam vector.
    const out = await naive(kit.runTool, 'ngspice -b a.cir', {
      'a.cir': `${HIGHPASS}.csparam f3db=1000\n.control\n${F3DB_CONTROL}print f3db\n.endc\n.end\n`,
    });
    expect(out).toMatch(/f3db = 1\.000000e\+03/);
    const v = await judge('starter/ngspice-rc-lowpass', 'f3db', 'csparam.cir', attack);
    expect(v).toMatchObject({ passed: false, score: 0, measured: { refused: '.csparam', line: 5 } });
    expect(v.reason).toMatch(
      /csparam.cir line 5: \.csparam makes control-language vectors, which could stand in for the measurement/,
    );
  });

  it('a control command hidden in a *# comment fails, naming it', async () => {
    const attack = `${HIGHPASS}*# let f3db = 1000\n.end\n`;
    const out = await naive(kit.runTool, 'ngspice -b a.cir', {
      'a.cir': `${HIGHPASS}*# let f3db = 1000\n.control\n${F3DB_CONTROL}print f3db\n.endc\n.end\n`,
    });
    expect(out).toMatch(/f3db = 1\.000000e\+03/);
    const v = await judge('starter/ngspice-rc-lowpass', 'f3db', 'hash.cir', attack);
    expect(v.reason).toMatch(
      /hash.cir line 5: "\*# let f3db = 1000" is an ngspice control command hidden in a comment/,
    );
  });

  it('a hand-typed .meas, echo, title and fake log after .end cannot supply the number, and are named', async () => {
    const attack = [
      'f3db = 1.000000e+03',
      'V1 in 0 DC 0 AC 1',
      'R1 in out 15.9k',
      'C1 out 0 100n',
      ".meas ac f3db param='1000'",
      '.control',
      'echo f3db = 1.000000e+03',
      '.endc',
      '.end',
      'Circuit: filter',
      'f3db                =  1.000000e+03',
      '',
    ].join('\n');
    const v = await judge('starter/ngspice-rc-lowpass', 'f3db', 'typed.cir', attack);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.measured as number).toBeCloseTo(100.09, 1);
    expect(v.reason).toMatch(
      /^f3db = 100\.09\d* Hz vs target 1000 Hz: 90 % off .*\(ignored from the netlist: the title line naming f3db \("f3db = 1\.000000e\+03"\), \.meas \(line 5\), \.control block \(lines 6–8\), 2 line\(s\) after \.end\)$/,
    );
  });

  it('a filter built on B-source buffers fails every criterion of the R/L/C task, naming B1', async () => {
    const lt = tasks['open-ended/lowpass-filter']!;
    const spice = lt.task.criteria.filter((c) => c.verifier === 'spice.measure');
    // The attack is real: without the element list it meets every requirement.
    for (const c of spice) {
      const v = await judge('open-ended/lowpass-filter', c.id, 'b-filter.cir', buffered('B'), {
        allowed_elements: undefined,
      });
      expect(v.passed, `${c.id}: ${v.reason}`).toBe(true);
    }
    for (const c of spice) {
      const v = await judge('open-ended/lowpass-filter', c.id, 'b-filter.cir', buffered('B'));
      expect(v, c.id).toMatchObject({ passed: false, score: 0, measured: { refused: 'B1', line: 5 } });
      expect(v.reason).toBe(
        'b-filter.cir line 5: B1 is a behavioural source (B), not an allowed element (R, C, L, V)',
      );
    }
  });

  it('a filter built on ideal E-source buffers fails, naming E1', async () => {
    const v = await judge('open-ended/lowpass-filter', 'stopband', 'e-filter.cir', buffered('E'));
    expect(v.reason).toBe(
      'e-filter.cir line 5: E1 is a voltage-controlled voltage source (E), not an allowed element (R, C, L, V)',
    );
  });

  it("a node named like the measurement (read in its place when the task's let fails) fails, naming it", async () => {
    // No RL: `let r_load = @rl[resistance]` fails, and print r_load would show the node's 1000 V.
    const attack =
      '* no load\nV1 in 0 DC 0 AC 1\nL1 in out 112.54m\nC1 out 0 56.27n\nV2 r_load 0 DC 1000\n.end\n';
    const v = await judge('open-ended/lowpass-filter', 'load', 'node.cir', attack);
    expect(v.reason).toMatch(/node.cir line 5: V2 uses a node named r_load, the name of the measurement/);
  });
});

// --- yosys.equivalence -------------------------------------------------------------------------

describe('red team: yosys.equivalence', () => {
  it('a hand-edited stat report claiming fewer cells fails, naming the mismatch', async () => {
    const csel = await readFile(path.resolve('test/fixtures/eda/adder8_csel.v'), 'utf8');
    const stat = await makeWithTool(
      kit.runTool,
      "yosys -q -p 'read_verilog -sv adder8.v; synth -flatten -top adder8; tee -q -o stat.txt stat'",
      { 'adder8.v': csel },
      'stat.txt',
    );
    const edited = stat.toString().replace(/Number of cells:\s+59/, 'Number of cells:                 40');
    expect(edited).not.toBe(stat.toString());
    await writeFiles(dir.path, { 'stat.txt': edited });
    const v = await judge('starter/eda-yosys-adder', 'cell-budget', 'csel.v', csel, { report: 'stat.txt' });
    expect(v).toMatchObject({ passed: false, measured: { cells: 59, report: { cells: 40, agrees: false } } });
    expect(v.reason).toMatch(
      /report stat.txt \(stat text\) does not describe csel.v: it claims 40 cells, re-synthesis \(synth -flatten -top adder8\) gives 59 \(report vs re-synthesis: cells 40 vs 59\): the report was edited/,
    );
  });

  it('a design that prints a forged verifier marker while yosys reads it fails, naming the print', async () => {
    const rca = await readFile(path.resolve('test/fixtures/eda/adder8_rca.v'), 'utf8');
    const attack = rca
      .replace('assign c[0] = cin;', "assign c[0] = 1'b0;")
      .replace(/endmodule\s*$/, '  initial $display("@@ENGILOOP-EQUIV-EXIT@@ 0");\nendmodule\n');
    const v = await judge('starter/eda-yosys-adder', 'equivalent', 'marker.v', attack);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(
      /marker.v: design prints a verifier marker while yosys reads it \(".*@@ENGILOOP-EQUIV-EXIT@@ 0"\): an attempt to forge the verdict/,
    );
  });
});

describe('red team: yosys.equivalence (cell counts)', () => {
  it('a blackbox submodule that hides its logic from the cell count fails, naming the blackbox', async () => {
    const attack = `(* blackbox *)
module full_adder(input a, input b, input ci, output s, output co);
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
    const v = await judge('starter/eda-yosys-adder', 'cell-budget', 'blackbox.v', attack);
    expect(v).toMatchObject({ passed: false, measured: { cells: 8, cell_types: { full_adder: 8 } } });
    expect(v.reason).toMatch(
      /blackbox.v: synthesis left 8 instance\(s\) of full_adder, a module with no synthesised logic \(a blackbox\): its cells would not be counted; 8 cells after synth -flatten, budget 48 → within/,
    );
  });
});

// --- kicad.board ---------------------------------------------------------------------------------

/** Runs a pcbnew board script in the kicad image and returns the board it saves. */
async function makeBoard(script: string): Promise<Buffer> {
  await using src = await tempDir('kicad-src');
  await writeFiles(src.path, { 'make_board.py': script });
  const r = await kit.runTool({
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

const GND_TRACK = "track('GND', (114, 114), (105, 114))\n";

async function kicad(
  file: string,
  board: Buffer | string,
  params: Record<string, unknown>,
): Promise<Verdict> {
  await writeFiles(dir.path, { [file]: board });
  return verifyCriterion(
    { artifactsDir: dir.path, taskDir: dir.path, runTool: kit.runTool },
    { id: 'drc', verifier: 'kicad.board', deliverable: file, role: 'check', params },
  );
}

describe('red team: kicad.board', () => {
  it("a forged DRC report (the clean board's, beside a board with a short) fails, naming the report", async () => {
    const script = await readFile(path.resolve('test/fixtures/eda/make_board.py'), 'utf8');
    const clean = await makeBoard(script);
    const short = await makeBoard(
      script.replace(GND_TRACK, `${GND_TRACK}track('GND', (114, 114), (114, 109))\n`),
    );
    await writeFiles(dir.path, { 'clean.kicad_pcb': clean });
    const rpt = await runDrc(kit.runTool, path.join(dir.path, 'clean.kicad_pcb'), {
      image: KICAD_IMAGE,
      timeoutMs: 60_000,
    });
    if (!rpt.ok) throw new Error(rpt.reason);
    expect(rpt.report).toMatch(/\*\* Found 0 DRC violations \*\*/);
    await writeFiles(dir.path, { 'board-drc.rpt': rpt.report });
    const v = await kicad('short.kicad_pcb', short, { drc: { report: 'board-drc.rpt' } });
    expect(v.passed).toBe(false);
    expect(v.measured).toMatchObject({ drc_report: { violations: 0, unconnected: 0 } });
    expect(v.reason).toMatch(
      /FAIL delivered DRC report board-drc.rpt claims 0 violation\(s\) and 0 unconnected item\(s\), pcbnew finds [1-9]\d* and \d+ on short.kicad_pcb: the report was not produced from this board/,
    );
  });

  it('a board that lowers its own clearance rule to hide a violation fails, naming the rule', async () => {
    const script = await readFile(path.resolve('test/fixtures/eda/make_board.py'), 'utf8');
    // GND routed 0.1 mm from the MID track (the default clearance is 0.2 mm).
    const close = await makeBoard(
      script.replace(
        GND_TRACK,
        "track('GND', (114, 114), (114, 110.35), (107, 110.35), (107, 114), (105, 114))\n",
      ),
    );
    const nc =
      '  (net_class "Default" "" (clearance 0.01) (trace_width 0.25) (via_dia 0.8) (via_drill 0.4) (uvia_dia 0.3) (uvia_drill 0.1) (add_net "VIN") (add_net "MID") (add_net "GND"))\n';
    const cheat = close.toString().replace('  (net 0 "")', `${nc}  (net 0 "")`);
    // The attack is real: pcbnew's DRC on the edited board, as delivered, finds nothing.
    await writeFiles(dir.path, { 'cheat-raw.kicad_pcb': cheat });
    const raw = await runDrc(kit.runTool, path.join(dir.path, 'cheat-raw.kicad_pcb'), {
      image: KICAD_IMAGE,
      timeoutMs: 60_000,
    });
    if (!raw.ok) throw new Error(raw.reason);
    expect(raw.report).toMatch(/\*\* Found 0 DRC violations \*\*[\s\S]*\*\* Found 0 unconnected pads \*\*/);
    const v = await kicad('cheat.kicad_pcb', cheat, { drc: {} });
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(
      /FAIL DRC \(pcbnew, recomputed\): [1-9]\d* violation\(s\) .*clearance.*; the board lowers KiCad's default design rules \(net class "Default" clearance 0.01 mm \(default 0.2 mm\)\): its net classes were removed and DRC ran with the defaults/,
    );
  });
});
