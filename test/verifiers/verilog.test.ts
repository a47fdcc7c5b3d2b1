/**
 * `verilog.testbench`: designs compiled with the starter task's hidden testbench by the real
 * iverilog + vvp in a tool container; the testbench is sealed per run (module names and result
 * tokens carry the nonce). Forging attempts are in red-team-eda.test.ts.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { countChecks, readBenchOutput, sealTestbench } from '../../verifiers/eda/verilog-bench.js';
import { scanDesign } from '../../verifiers/eda/verilog-scan.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const TASK_DIR = path.resolve('tasks/starter/verilog-counter');
const HEADER = 'module counter(input clk, input rst, input en, output reg [3:0] q, output tc);';
const REFERENCE = `${HEADER}
  assign tc = en && (q == 4'd9);
  always @(posedge clk)
    if (rst) q <= 4'd0;
    else if (en) q <= (q == 4'd9) ? 4'd0 : q + 4'd1;
endmodule
`;
// Another correct design: next state in a combinational block, tc from a comparison wire.
const ALTERNATIVE = `${HEADER}
  reg [3:0] next;
  wire at9 = q >= 4'd9;
  assign tc = at9 & en;
  always @* begin
    next = q;
    if (en) next = at9 ? 4'd0 : q + 1'b1;
    if (rst) next = 4'd0;
  end
  always @(posedge clk) q <= next;
endmodule
`;
// Another correct design, split into two modules; the top reads its own submodule's signal by a
// hierarchical name (inside its own tree, so it is allowed).
const TWO_MODULES = `module decade(input clk, input rst, input en, output reg [3:0] q);
  wire at9 = q == 4'd9;
  always @(posedge clk)
    if (rst) q <= 4'd0;
    else if (en) q <= at9 ? 4'd0 : q + 4'd1;
endmodule
${HEADER.replace('output reg [3:0] q', 'output [3:0] q')}
  decade u (.clk(clk), .rst(rst), .en(en), .q(q));
  assign tc = en && u.at9;
endmodule
`;
const OFF_BY_ONE = REFERENCE.replace("(q == 4'd9) ? 4'd0", "(q == 4'd10) ? 4'd0");
const ASYNC_RESET = REFERENCE.replace('always @(posedge clk)', 'always @(posedge clk or posedge rst)');
const SYNTAX_ERROR = REFERENCE.replace("assign tc = en && (q == 4'd9);", 'assign tc = en &&;');
const WRONG_PORTS =
  'module counter(input clk, output reg [3:0] q); always @(posedge clk) q <= q + 1; endmodule\n';
const CHEAT_NO_FINISH = `${HEADER}\n  assign tc = 0;\nendmodule\n`;

const kit = toolKit('verifiers-verilog');
let dir: { path: string } & AsyncDisposable;

beforeAll(async () => {
  dir = await tempDir('verilog');
  await writeFiles(dir.path, {
    'reference.v': REFERENCE,
    'alternative.v': ALTERNATIVE,
    'two-modules.v': TWO_MODULES,
    'off-by-one.v': OFF_BY_ONE,
    'async.v': ASYNC_RESET,
    'syntax.v': SYNTAX_ERROR,
    'ports.v': WRONG_PORTS,
    'stuck.v': CHEAT_NO_FINISH,
    // A wrong design (stuck at zero) that prints a passing RESULT line and ends the run early.
    'forged.v': OFF_BY_ONE.replace(
      /endmodule\s*$/,
      '  initial begin\n    $display("RESULT 40/40");\n    $finish;\n  end\nendmodule\n',
    ),
    // Comments may mention $display.
    'commented.v': `// debug: $display("count %d", count);\n/* $finish */\n${REFERENCE}`,
  });
});
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

function run(deliverable: string, params: Record<string, unknown> = {}): Promise<Verdict> {
  return verifyCriterion(
    { artifactsDir: dir.path, taskDir: TASK_DIR, runTool: kit.runTool },
    {
      id: 'testbench',
      verifier: 'verilog.testbench',
      deliverable,
      role: 'check',
      params: { testbench: 'hidden/tb_counter.v', top: 'tb_counter', ...params },
    },
  );
}

describe('verilog.testbench', () => {
  it('passes the reference design on every check (≥ 30)', async () => {
    const v = await run('reference.v');
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    expect((v.measured as { total: number }).total).toBeGreaterThanOrEqual(30);
  });
  it('passes an alternative correct design', async () => {
    const v = await run('alternative.v');
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
  });
  it('passes a design that refers by name into its own submodule', async () => {
    const v = await run('two-modules.v');
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
  });
  it('seals each run with a fresh nonce, and re-verifies the same way with the recorded one', async () => {
    const a = await run('reference.v');
    const b = await run('reference.v');
    expect(a.seal).toMatch(/^[0-9a-f]{16}$/);
    expect(b.seal).not.toBe(a.seal);
    const again = await verifyCriterion(
      { artifactsDir: dir.path, taskDir: TASK_DIR, runTool: kit.runTool, nonce: a.seal! },
      {
        id: 'testbench',
        verifier: 'verilog.testbench',
        deliverable: 'reference.v',
        role: 'check',
        params: { testbench: 'hidden/tb_counter.v', top: 'tb_counter' },
      },
    );
    expect(again).toMatchObject({ passed: true, seal: a.seal, measured: a.measured });
  });
  it('fails an off-by-one counter with the fraction passed and the first failures', async () => {
    const v = await run('off-by-one.v');
    expect(v.passed).toBe(false);
    expect(v.score).toBeGreaterThan(0);
    expect(v.score).toBeLessThan(1);
    // The reason quotes the testbench's first mismatch lines, without the seal.
    expect(v.reason).toMatch(
      /^42\/137 testbench checks passed; first failures: FAIL 23: .*got q=10 tc=0 \| FAIL 24/,
    );
    expect(v.reason).not.toMatch(new RegExp(v.seal!));
  });
  it('fails an asynchronous reset', async () => {
    const v = await run('async.v');
    expect(v.passed).toBe(false);
  });
  it('passes a partly wrong design when min_fraction allows it', async () => {
    const v = await run('off-by-one.v', { min_fraction: 0.3 });
    expect(v).toMatchObject({ passed: true, tolerance: '≥ 0.3 of checks' });
  });
  it('quotes the first compile error lines', async () => {
    const v = await run('syntax.v');
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(/syntax.v does not compile: .*syntax\.v:2: syntax error/);
    const p = await run('ports.v');
    expect(p.reason).toMatch(/does not compile with the testbench: .*port/i);
  });
  it('fails a wrong design that still simulates to the end', async () => {
    const v = await run('stuck.v');
    expect(v.passed).toBe(false);
  });
  it('fails a design that prints or ends the simulation, which could forge the result', async () => {
    const v = await run('forged.v');
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(
      /forged.v: design calls \$display \(line 7\): the hidden testbench's output is the verdict/,
    );
    expect(v.measured).toEqual({ refused: '$display', line: 7 });
    expect((await run('commented.v')).passed).toBe(true);
    // Allowed to print, its forged line is still not the testbench's (no seal), and its $finish
    // ends the run before the testbench's own RESULT line.
    const allowed = await run('forged.v', { design_may_print: true });
    expect(allowed).toMatchObject({ passed: false, score: 0 });
    expect(allowed.reason).toMatch(
      /never printed its RESULT line: the simulation ended before the testbench finished .*ignored 1 line\(s\) the testbench did not print \(no seal\), e.g. "RESULT 40\/40"/,
    );
  });
  it('fails a missing design and a missing testbench', async () => {
    expect((await run('none.v')).reason).toBe('deliverable none.v is missing');
    expect((await run('reference.v', { testbench: 'hidden/nope.v' })).reason).toMatch(
      /testbench hidden\/nope.v is not in the task folder/,
    );
    expect((await run('reference.v', { top: 'tb_nope' })).reason).toMatch(
      /task error: top tb_nope is not a module of the testbench/,
    );
  });
});

describe('sealing the testbench', () => {
  it('renames every module it declares and seals its result tokens, in code and strings only', () => {
    const tb = [
      '// module tb in a comment; "PASS" too',
      'module tb; helper h(); initial begin $display("PASS %0d", 1); $display("x\\nFAIL y"); $display("RESULT %0d/%0d", 1, 1); $display("tb PASS"); end endmodule',
      'module helper; endmodule',
    ].join('\n');
    const s = sealTestbench(tb, 'ab12');
    expect([...s.modules]).toEqual([
      ['tb', 'tb__ab12'],
      ['helper', 'helper__ab12'],
    ]);
    expect(s.text).toBe(
      [
        '// module tb in a comment; "PASS" too',
        'module tb__ab12; helper__ab12 h(); initial begin $display("PASS-ab12 %0d", 1); $display("x\\nFAIL-ab12 y"); $display("RESULT-ab12 %0d/%0d", 1, 1); $display("tb PASS"); end endmodule',
        'module helper__ab12; endmodule',
      ].join('\n'),
    );
    expect(s.printsResult).toBe(true);
  });
  it('reads only sealed PASS/RESULT lines, and every FAIL line', () => {
    const o = readBenchOutput('PASS-ab12 1\nFAIL-ab12 2: q=3\nRESULT-ab12 1/2\nRESULT 2/2\nPASS 9\n', 'ab12');
    expect(o).toEqual({
      result: { passed: 1, total: 2 },
      passLines: 1,
      failLines: ['FAIL 2: q=3'],
      unsealed: ['RESULT 2/2', 'PASS 9'],
    });
    expect(countChecks(o)).toEqual({ passed: 1, total: 2 });
    // A FAIL line is never outvoted by a RESULT line that claims every check passed.
    expect(countChecks(readBenchOutput('FAIL-ab12 1\nFAIL 2\nRESULT-ab12 5/5\n', 'ab12'))).toEqual({
      passed: 3,
      total: 5,
    });
    expect(countChecks(readBenchOutput('PASS-ab12 1\nPASS-ab12 2\nFAIL-ab12 3\nnoise\n', 'ab12'))).toEqual({
      passed: 2,
      total: 3,
    });
    expect(countChecks(readBenchOutput('nothing\n', 'ab12')).total).toBe(0);
  });
});

describe('scanning the design', () => {
  const scan = (src: string, mayPrint = false) =>
    scanDesign(src, { mayPrint, benchNames: new Set(['tb', 'check']) });
  it.each([
    [
      'module m;\ninitial force tb.passed = 1;\nendmodule',
      /design drives testbench signal tb.passed \(force, line 2\)/,
    ],
    ['module m; wire [3:0] x = tb.model; endmodule', /design refers to testbench signal tb.model \(line 1\)/],
    ['module m; initial release tb.passed; endmodule', /drives testbench signal tb.passed \(release/],
    ['module m; defparam tb.N = 2; endmodule', /drives testbench signal tb.N \(defparam/],
    ['module m; initial $root.tb.passed = 1; endmodule', /refers to \$root.tb.passed/],
    ['module m; bind tb spy s(); endmodule', /uses bind/],
    ['`include "engiloop_tb.v"\nmodule m; endmodule', /includes a file/],
    ['module m; reg [7:0] r[0:9]; initial $readmemh("tb.v", r); endmodule', /calls \$readmemh .*file I\/O/],
    ['module m; integer f; initial f = $fopen("tb.v", "r"); endmodule', /calls \$fopen .*file I\/O/],
    ['module m; reg x; initial $deposit(x, 1); endmodule', /calls \$deposit .*no VPI/],
    ['module m; initial $system("cat *.v"); endmodule', /calls \$system/],
    ['module m; `CHECK endmodule', /uses macro `CHECK .*does not define/],
    ['module m; initial $finish; endmodule', /calls \$finish/],
  ])('refuses %j', (src, why) => {
    expect(scan(src)?.reason).toMatch(why);
  });
  it('allows maths, own hierarchy, comments and strings, and printing when the task says so', () => {
    expect(
      scan(
        'module m(input [3:0] a, output y); localparam W = $clog2(16); sub s (.a(a[0])); assign y = s.q ^ $signed(a[1]); real r = 1.5e3; endmodule\n// force tb.passed = 1; $display\nmodule sub(input a, output q); assign q = a; endmodule',
      ),
    ).toBeNull();
    expect(scan('module m; initial $display("force tb.passed"); endmodule', true)).toBeNull();
  });
});
