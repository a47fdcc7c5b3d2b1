/**
 * `verilog.testbench`: compiles the delivered design with a hidden testbench from the task folder
 * (never copied into the agent's sandbox) using iverilog, runs it with vvp in a fresh tool
 * container, and counts the testbench's checks.
 *
 * The deliverable is hostile input. Before anything runs, the design is scanned (`verilog-scan.ts`)
 * and refused for hierarchical references out of its own modules, `bind`, `` `include ``, and
 * system tasks outside a small allowlist; then it is compiled on its own, and refused when a name
 * in it does not bind there (it would have bound into the testbench). The testbench is sealed for
 * this verification (`verilog-bench.ts`): its modules and its `PASS` / `FAIL` / `RESULT` tokens carry
 * the nonce, so a design can neither name it nor print a line the verdict reads, and any `FAIL`
 * line fails the checks whatever a `RESULT` line says.
 */
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { taskFile } from '../params.js';
import type { ToolResult, Verdict } from '../types.js';
import { CLI_IMAGE } from './ngspice.js';
import { countChecks, readBenchOutput, sealTestbench } from './verilog-bench.js';
import { scanDesign } from './verilog-scan.js';

/** Params of `verilog.testbench`. */
const VerilogTestbenchParams = z.object({
  /** Testbench path relative to the task folder, e.g. `hidden/tb_counter.v`. */
  testbench: taskFile(),
  /** Top module of the simulation (the testbench module, as the testbench names it). */
  top: z.string().regex(/^[A-Za-z_][A-Za-z0-9_$]*$/, 'a Verilog identifier'),
  /** Fraction of checks that must pass. Default 1: all of them (then any FAIL line fails). */
  min_fraction: z.number().min(0).max(1).default(1),
  /** Language generation passed to iverilog (`-g`). */
  generation: z.enum(['2001', '2005', '2009', '2012']).default('2012'),
  /**
   * Let the design call system tasks that print or end the simulation (`$display`, `$finish`, …).
   * Default false. Either way the verdict reads only the testbench's sealed lines, and a testbench
   * that prints a `RESULT` line must reach it (a design's early `$finish` fails the run).
   */
  design_may_print: z.boolean().default(false),
  image: z.string().default(CLI_IMAGE),
  timeout_sec: z.number().positive().default(30),
});
export type VerilogTestbenchParams = z.infer<typeof VerilogTestbenchParams>;

/** The `verilog.testbench` verifier. */
export const verilogTestbench = defineVerifier({
  name: 'verilog.testbench',
  description:
    'Compiles a Verilog design with a hidden testbench (iverilog + vvp), sealed per run, and counts passing checks; refuses designs that reach into the testbench',
  params: VerilogTestbenchParams,
  sealed: true,
  async judge({ ctx, params: p, file, nonce }): Promise<Verdict> {
    const seal = nonce.toLowerCase().replace(/[^0-9a-z]/g, '');
    const expected = { min_fraction: p.min_fraction };
    const fail = (reason: string, measured?: unknown): Verdict => ({
      passed: false,
      score: 0,
      expected,
      ...(measured === undefined ? {} : { measured }),
      reason,
    });
    const tbPath = path.join(ctx.taskDir, p.testbench);
    const exists = await access(tbPath).then(
      () => true,
      () => false,
    );
    if (!exists) return fail(`task error: testbench ${p.testbench} is not in the task folder`);
    const bench = sealTestbench(await readFile(tbPath, 'utf8'), seal);
    const top = bench.modules.get(p.top);
    if (top === undefined)
      return fail(`task error: top ${p.top} is not a module of the testbench ${p.testbench}`);

    const refusal = scanDesign(file.bytes.toString('utf8'), {
      mayPrint: p.design_may_print,
      benchNames: bench.names,
    });
    if (refusal !== null)
      return fail(`${file.rel}: ${refusal.reason}`, { refused: refusal.attempt, line: refusal.line });

    const dir = await mkdtemp(path.join(tmpdir(), 'engiloop-verilog-'));
    try {
      const tb = `engiloop_tb_${seal}.v`;
      await writeFile(path.join(dir, tb), bench.text);
      const design = /^[\w.-]+\.s?v$/.test(path.basename(file.rel)) ? path.basename(file.rel) : 'design.v';
      const mark = (s: string): string => `@@ENGILOOP-${s}-${seal}@@`;
      const g = `-g${p.generation}`;
      const command = [
        `iverilog ${g} -o /tmp/engiloop_alone ${design} 2> alone.log || { echo ${mark('ALONE-FAILED')}; cat alone.log; exit 3; }`,
        `iverilog ${g} -s ${top} -o engiloop_sim ${tb} ${design} 2> compile.log || { echo ${mark('COMPILE-FAILED')}; cat compile.log; exit 3; }`,
        `echo ${mark('SIM')}; vvp -n engiloop_sim`,
      ].join('\n');
      const res = await ctx.runTool(
        {
          image: p.image,
          command,
          files: [
            { hostPath: path.join(dir, tb), dest: tb },
            { hostPath: file.path, dest: design },
          ],
          timeoutMs: p.timeout_sec * 1000,
        },
        ctx.signal,
      );
      return verdictOf(res, { rel: file.rel, p, seal, printsResult: bench.printsResult, mark, fail });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
});

interface Reading {
  rel: string;
  p: VerilogTestbenchParams;
  seal: string;
  printsResult: boolean;
  mark: (s: string) => string;
  fail: (reason: string, measured?: unknown) => Verdict;
}

function verdictOf(res: ToolResult, r: Reading): Verdict {
  const { rel, p, fail } = r;
  const after = (m: string): string | undefined => {
    const i = res.stdout.indexOf(r.mark(m));
    return i < 0 ? undefined : res.stdout.slice(i + r.mark(m).length);
  };
  const alone = after('ALONE-FAILED');
  if (alone !== undefined) {
    const out = outOfTree(alone);
    return out !== undefined
      ? fail(`${rel}: design ${out.what} (iverilog, compiled without the testbench: ${out.line})`, {
          refused: out.name,
        })
      : fail(`${rel} does not compile: ${firstLines(alone)}`);
  }
  const compile = after('COMPILE-FAILED');
  if (compile !== undefined)
    return fail(`${rel} does not compile with the testbench: ${firstLines(compile)}`);
  if (res.timedOut) return fail(`simulation of ${rel} timed out after ${p.timeout_sec} s`);
  const sim = after('SIM') ?? '';
  const o = readBenchOutput(sim, r.seal);
  const { passed, total } = countChecks(o);
  const ignored =
    o.unsealed.length > 0
      ? `; ignored ${o.unsealed.length} line(s) the testbench did not print (no seal), e.g. "${o.unsealed[0]}"`
      : '';
  const tail = (): string =>
    `${res.stderr}\n${sim}`.replaceAll(`-${r.seal}`, '').trim().split('\n').slice(-3).join(' | ');
  const measured = {
    passed,
    total,
    fraction: total === 0 ? 0 : passed / total,
    fail_lines: o.failLines.length,
  };
  if (r.printsResult && o.result === undefined)
    return fail(
      `the testbench never printed its RESULT line: the simulation ended before the testbench finished (exit ${res.exitCode})${ignored}: ${tail()}`,
      measured,
    );
  if (total === 0)
    return fail(`the testbench printed no results (exit ${res.exitCode})${ignored}: ${tail()}`, measured);
  const ok = measured.fraction >= p.min_fraction;
  const fails = o.failLines.slice(0, 3).join(' | ');
  return {
    passed: ok,
    score: measured.fraction,
    measured,
    expected: { min_fraction: p.min_fraction },
    tolerance: p.min_fraction === 1 ? 'all checks' : `≥ ${p.min_fraction} of checks`,
    reason: `${passed}/${total} testbench checks passed${fails === '' ? '' : `; first failures: ${fails}`}${ignored}`,
  };
}

/** A name the design uses that iverilog could not bind without the testbench, from its log. */
function outOfTree(log: string): { name: string; what: string; line: string } | undefined {
  const patterns: [RegExp, (n: string) => string][] = [
    [/Could not find variable ``([^']+)''/, (n) => `drives ${n}, outside its own modules`],
    [
      /Unable to bind (?:wire\/reg\/memory|parameter|variable)? ?`([^']+)'/,
      (n) => `refers to ${n}, outside its own modules`,
    ],
    [/Enable of unknown task ``([^']+)''/, (n) => `calls task ${n}, outside its own modules`],
    [/No function named `([^']+)'/, (n) => `calls function ${n}, outside its own modules`],
    [/Unknown module type: (\S+)/, (n) => `instantiates module ${n}, which it does not define`],
  ];
  for (const line of log.split('\n'))
    for (const [re, what] of patterns) {
      const m = re.exec(line);
      if (m !== null) return { name: m[1]!, what: what(m[1]!), line: line.trim() };
    }
  return undefined;
}

function firstLines(log: string): string {
  return log
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .slice(0, 4)
    .join(' | ');
}
