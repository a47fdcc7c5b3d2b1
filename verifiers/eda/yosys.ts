/**
 * `yosys.equivalence`: in a fresh tool container, yosys 0.23 proves the delivered design equivalent
 * to a hidden reference (`equiv_make` / `equiv_simple -seq N` / `equiv_induct` /
 * `equiv_status -assert`, which fails on any unproven `$equiv` cell), and/or synthesises it
 * (`synth -flatten -top X; stat`) and checks the number of cells against a budget.
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

/** Params of `yosys.equivalence`; give `reference`, `max_cells` or both. */
export const YosysEquivalenceParams = z
  .object({
    /** Reference design relative to the task folder, e.g. `hidden/adder8_ref.v`. */
    reference: relPath.optional(),
    /** Top module (same name in both designs). */
    top: z.string().regex(/^[A-Za-z_][A-Za-z0-9_$]*$/, 'a Verilog identifier'),
    /** Cycles `equiv_simple -seq` looks back (sequential designs). Default 5. */
    seq: z.number().int().min(0).max(50).default(5),
    /** Cell budget: `synth -flatten -top <top>; stat` must report at most this many cells. */
    max_cells: z.number().int().positive().optional(),
    image: z.string().default(CLI_IMAGE),
    timeout_sec: z.number().positive().default(60),
  })
  .refine((p) => p.reference !== undefined || p.max_cells !== undefined, 'give reference, max_cells or both');
export type YosysEquivalenceParams = z.infer<typeof YosysEquivalenceParams>;

const DESIGN = 'engiloop_design.v';
const GOLD = 'engiloop_gold.v';
const mark = (s: string): string => `@@ENGILOOP-${s}@@`;

/** The shell command: read check, then the equivalence proof and/or the synthesis, with markers. */
export function yosysCommand(p: YosysEquivalenceParams): string {
  const t = p.top;
  const lines = [
    `yosys -q -p 'read_verilog -sv ${DESIGN}; hierarchy -check -top ${t}' > read.log 2>&1 || { echo ${mark('READ-FAILED')}; grep -m3 -E 'ERROR|error' read.log; exit 3; }`,
  ];
  if (p.reference !== undefined)
    lines.push(
      `yosys -q -p 'read_verilog -sv ${GOLD}; prep -flatten -top ${t}; design -stash gold; read_verilog -sv ${DESIGN}; prep -flatten -top ${t}; design -stash gate; design -copy-from gold -as gold ${t}; design -copy-from gate -as gate ${t}; equiv_make gold gate equiv; hierarchy -top equiv; equiv_simple -seq ${p.seq}; equiv_induct; equiv_status -assert' > equiv.log 2>&1; echo "${mark('EQUIV-EXIT')} $?"; grep -m2 -E 'ERROR' equiv.log`,
    );
  if (p.max_cells !== undefined)
    lines.push(
      `yosys -p 'read_verilog -sv ${DESIGN}; synth -flatten -top ${t}; stat' > synth.log 2>&1; echo "${mark('SYNTH-EXIT')} $?"; grep -E 'Number of cells' synth.log | tail -1; grep -m2 ERROR synth.log`,
    );
  return lines.join('\n');
}

/** What the command printed. */
export interface YosysReading {
  readError?: string;
  equivalent?: boolean;
  unproven?: number;
  equivError?: string;
  cells?: number;
  synthError?: string;
}

/** Reads the markers and numbers the command prints. */
export function readYosysOutput(stdout: string): YosysReading {
  const r: YosysReading = {};
  if (stdout.includes(mark('READ-FAILED'))) {
    r.readError = stdout
      .slice(stdout.indexOf(mark('READ-FAILED')) + mark('READ-FAILED').length)
      .trim()
      .split('\n')
      .slice(0, 2)
      .join(' | ');
    return r;
  }
  const eq = new RegExp(`${mark('EQUIV-EXIT')} (\\d+)`).exec(stdout);
  if (eq !== null) {
    r.equivalent = eq[1] === '0';
    const after = stdout.slice(eq.index);
    const unproven = /Found (\d+) unproven \$equiv cells/.exec(after);
    if (unproven !== null) r.unproven = Number(unproven[1]);
    const err = /^ERROR: (.*)$/m.exec(after.split(mark('SYNTH-EXIT'))[0] ?? '');
    if (err !== null && unproven === null) r.equivError = err[1];
  }
  const sy = new RegExp(`${mark('SYNTH-EXIT')} (\\d+)`).exec(stdout);
  if (sy !== null) {
    const cells = /Number of cells:\s+(\d+)/.exec(stdout.slice(sy.index));
    if (cells !== null) r.cells = Number(cells[1]);
    else r.synthError = /^ERROR: (.*)$/m.exec(stdout.slice(sy.index))?.[1] ?? `synthesis exited ${sy[1]}`;
  }
  return r;
}

/** The `yosys.equivalence` verifier. */
export const yosysEquivalence: Verifier = {
  name: 'yosys.equivalence',
  description:
    'Proves a Verilog design equivalent to a hidden reference with yosys (equiv_*) and/or checks its synthesised cell count',
  params: YosysEquivalenceParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = YosysEquivalenceParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    const expected = {
      ...(p.reference ? { equivalent_to: p.reference } : {}),
      ...(p.max_cells ? { max_cells: p.max_cells } : {}),
    };
    const files = [{ hostPath: read.path, dest: DESIGN }];
    if (p.reference !== undefined) {
      const gold = path.join(ctx.taskDir, p.reference);
      if (
        !(await access(gold).then(
          () => true,
          () => false,
        ))
      )
        return {
          passed: false,
          score: 0,
          expected,
          reason: `task error: reference ${p.reference} is not in the task folder`,
        };
      files.push({ hostPath: gold, dest: GOLD });
    }
    const res = await ctx.runTool(
      { image: p.image, command: yosysCommand(p), files, timeoutMs: p.timeout_sec * 1000 },
      ctx.signal,
    );
    if (res.timedOut)
      return {
        passed: false,
        score: 0,
        expected,
        reason: `yosys timed out after ${p.timeout_sec} s on ${read.rel}`,
      };
    const r = readYosysOutput(res.stdout);
    if (r.readError !== undefined)
      return {
        passed: false,
        score: 0,
        expected,
        reason: `yosys cannot read ${read.rel} with top ${p.top}: ${r.readError}`,
      };
    const parts: string[] = [];
    let ok = true;
    if (p.reference !== undefined) {
      if (r.equivalent === undefined)
        return {
          passed: false,
          score: 0,
          expected,
          reason: `yosys printed no equivalence result (exit ${res.exitCode}): ${res.stderr.slice(-300)}`,
        };
      ok &&= r.equivalent;
      parts.push(
        r.equivalent
          ? `equivalent to the reference (equiv_simple -seq ${p.seq} + equiv_induct)`
          : r.unproven !== undefined
            ? `NOT equivalent: ${r.unproven} unproven $equiv cell(s)`
            : `NOT equivalent: ${r.equivError ?? 'equivalence check failed'}`,
      );
    }
    if (p.max_cells !== undefined) {
      if (r.cells === undefined) {
        ok = false;
        parts.push(`synthesis failed: ${r.synthError ?? 'no cell count'}`);
      } else {
        const within = r.cells <= p.max_cells;
        ok &&= within;
        parts.push(
          `${r.cells} cells after synth -flatten, budget ${p.max_cells} → ${within ? 'within' : 'over'}`,
        );
      }
    }
    return {
      passed: ok,
      score: ok ? 1 : 0,
      measured: {
        ...(r.equivalent !== undefined ? { equivalent: r.equivalent, unproven: r.unproven ?? 0 } : {}),
        ...(r.cells !== undefined ? { cells: r.cells } : {}),
      },
      expected,
      tolerance: p.max_cells !== undefined ? `cells ≤ ${p.max_cells}` : 'every $equiv cell proven',
      reason: `${read.rel}: ${parts.join('; ')}`,
    };
  },
};
