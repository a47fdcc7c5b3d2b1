/**
 * `verilog.testbench`: compiles the delivered design with a hidden testbench from the task folder
 * (never copied into the agent's sandbox) using iverilog, runs it with vvp in a fresh tool
 * container, and counts the testbench's `PASS n` / `FAIL n` lines or its final `RESULT passed/total`.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { readDeliverable } from '../deliverable.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { CLI_IMAGE } from './ngspice.js';

const relPath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'a path inside the task folder');

/** Params of `verilog.testbench`. */
export const VerilogTestbenchParams = z.object({
  /** Testbench path relative to the task folder, e.g. `hidden/tb_counter.v`. */
  testbench: relPath,
  /** Top module of the simulation (the testbench module). */
  top: z.string().regex(/^[A-Za-z_][A-Za-z0-9_$]*$/, 'a Verilog identifier'),
  /** Fraction of checks that must pass. Default 1: all of them. */
  min_fraction: z.number().min(0).max(1).default(1),
  /** Language generation passed to iverilog (`-g`). */
  generation: z.enum(['2001', '2005', '2009', '2012']).default('2012'),
  /**
   * Let the design call system tasks that print or end the simulation (`$display`, `$finish`, …).
   * Default false: the testbench's output is the verdict, so a design that prints could forge it.
   */
  design_may_print: z.boolean().default(false),
  image: z.string().default(CLI_IMAGE),
  timeout_sec: z.number().positive().default(30),
});
export type VerilogTestbenchParams = z.infer<typeof VerilogTestbenchParams>;

const TB = 'engiloop_tb.v';
const COMPILE_FAILED = '@@ENGILOOP-COMPILE-FAILED@@';

/** The `verilog.testbench` verifier. */
export const verilogTestbench: Verifier = {
  name: 'verilog.testbench',
  description: 'Compiles a Verilog design with a hidden testbench (iverilog + vvp) and counts passing checks',
  params: VerilogTestbenchParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = VerilogTestbenchParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    const tb = path.join(ctx.taskDir, p.testbench);
    if (
      !(await access(tb).then(
        () => true,
        () => false,
      ))
    )
      return {
        passed: false,
        score: 0,
        reason: `task error: testbench ${p.testbench} is not in the task folder`,
      };
    if (!p.design_may_print) {
      const call = printingCall(read.bytes.toString('utf8'));
      if (call)
        return {
          passed: false,
          score: 0,
          reason: `${read.rel} calls ${call.task} (line ${call.line}): the hidden testbench's output is the verdict, so the design may not print or end the simulation; remove the call`,
        };
    }
    const design = path.basename(read.rel) === TB ? 'design.v' : path.basename(read.rel);
    const command = [
      `iverilog -g${p.generation} -s ${p.top} -o engiloop_sim ${TB} ${design} 2> compile.log`,
      `|| { echo ${COMPILE_FAILED}; cat compile.log; exit 3; }`,
      '; vvp -n engiloop_sim',
    ].join(' ');
    const res = await ctx.runTool(
      {
        image: p.image,
        command,
        files: [
          { hostPath: tb, dest: TB },
          { hostPath: read.path, dest: design },
        ],
        timeoutMs: p.timeout_sec * 1000,
      },
      ctx.signal,
    );
    const expected = { min_fraction: p.min_fraction };
    if (res.stdout.includes(COMPILE_FAILED)) {
      const log = res.stdout.slice(res.stdout.indexOf(COMPILE_FAILED) + COMPILE_FAILED.length);
      const first = log
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.length > 0)
        .slice(0, 4)
        .join(' | ');
      return {
        passed: false,
        score: 0,
        expected,
        reason: `${read.rel} does not compile with the testbench: ${first}`,
      };
    }
    if (res.timedOut)
      return {
        passed: false,
        score: 0,
        expected,
        reason: `simulation of ${read.rel} timed out after ${p.timeout_sec} s`,
      };
    const counts = countResults(res.stdout);
    if (counts.total === 0) {
      const tail = `${res.stderr}\n${res.stdout}`.trim().split('\n').slice(-3).join(' | ');
      return {
        passed: false,
        score: 0,
        expected,
        reason: `the testbench printed no results (exit ${res.exitCode}): ${tail}`,
      };
    }
    const fraction = counts.passed / counts.total;
    const ok = fraction >= p.min_fraction;
    const fails = counts.failLines.slice(0, 3).join(' | ');
    return {
      passed: ok,
      score: fraction,
      measured: { passed: counts.passed, total: counts.total, fraction },
      expected,
      tolerance: p.min_fraction === 1 ? 'all checks' : `≥ ${p.min_fraction} of checks`,
      reason: `${counts.passed}/${counts.total} testbench checks passed${fails === '' ? '' : `; first failures: ${fails}`}`,
    };
  },
};

/**
 * Reads testbench output: the last `RESULT p/t` line wins; without one, `PASS …` and `FAIL …` lines
 * are counted.
 */
export function countResults(stdout: string): { passed: number; total: number; failLines: string[] } {
  const lines = stdout.split('\n').map((l) => l.trim());
  const failLines = lines.filter((l) => /^FAIL\b/.test(l));
  const results = [...stdout.matchAll(/^\s*RESULT\s+(\d+)\s*\/\s*(\d+)\s*$/gm)];
  const last = results.at(-1);
  if (last !== undefined) {
    const passed = Number(last[1]);
    const total = Number(last[2]);
    if (passed <= total) return { passed, total, failLines };
  }
  const passed = lines.filter((l) => /^PASS\b/.test(l)).length;
  return { passed, total: passed + failLines.length, failLines };
}

const PRINTING =
  /\$(display[bho]?|write[bho]?|strobe[bho]?|monitor[bho]?|fdisplay[bho]?|fwrite[bho]?|fstrobe[bho]?|fmonitor[bho]?|finish|stop|fatal|error|warning|info)\b/;

/**
 * The first system task in Verilog source that prints or ends the simulation, with its line; block
 * and line comments are blanked first (keeping line breaks), so commented-out calls do not count.
 *
 * @example printingCall('module m;\ninitial $display("RESULT 1/1");\nendmodule') // { task: '$display', line: 2 }
 */
export function printingCall(source: string): { task: string; line: number } | null {
  const blank = (m: string) => m.replace(/[^\n]/g, ' ');
  const code = source.replace(/\/\*[\s\S]*?\*\//g, blank).replace(/\/\/[^\n]*/g, blank);
  const m = PRINTING.exec(code);
  if (!m) return null;
  return { task: m[0], line: code.slice(0, m.index).split('\n').length };
}
