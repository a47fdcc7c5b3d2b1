/**
 * `verilog.testbench`: designs compiled with the starter task's hidden testbench by the real
 * iverilog + vvp in a tool container.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../actors/sandbox/index.js';
import { countResults } from '../../verifiers/eda/verilog.js';
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
  it('fails an off-by-one counter with the fraction passed and the first failures', async () => {
    const v = await run('off-by-one.v');
    expect(v.passed).toBe(false);
    expect(v.score).toBeGreaterThan(0);
    expect(v.score).toBeLessThan(1);
    expect(v.reason).toMatch(/testbench checks passed; first failures: FAIL \d+: .*got q=10/);
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
    expect(v.reason).toMatch(/syntax.v does not compile with the testbench: .*syntax\.v:2: syntax error/);
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
      /forged.v calls \$display \(line \d+\): the hidden testbench's output is the verdict/,
    );
    expect((await run('commented.v')).passed).toBe(true);
    // Why it is refused: allowed to print, the wrong design passes with its forged line.
    const allowed = await run('forged.v', { design_may_print: true });
    expect(allowed).toMatchObject({ passed: true, measured: { passed: 40, total: 40 } });
  });
  it('fails a missing design and a missing testbench', async () => {
    expect((await run('none.v')).reason).toBe('deliverable none.v is missing');
    expect((await run('reference.v', { testbench: 'hidden/nope.v' })).reason).toMatch(
      /testbench hidden\/nope.v is not in the task folder/,
    );
  });
});

describe('countResults', () => {
  it('prefers the last RESULT line', () => {
    expect(countResults('PASS 1\nFAIL 2: x\nRESULT 3/4\n')).toMatchObject({
      passed: 3,
      total: 4,
      failLines: ['FAIL 2: x'],
    });
  });
  it('counts PASS and FAIL lines without one', () => {
    expect(countResults('PASS 1\nPASS 2\nFAIL 3\nnoise\n')).toMatchObject({ passed: 2, total: 3 });
    expect(countResults('nothing\n').total).toBe(0);
  });
});
