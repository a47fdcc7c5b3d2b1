/**
 * `yosys.equivalence`: in a fresh tool container, yosys 0.23 proves the delivered design equivalent
 * to a hidden reference (`equiv_make` / `equiv_simple -seq N` / `equiv_induct` /
 * `equiv_status -assert`, which fails on any unproven `$equiv` cell), and/or synthesises it
 * (`synth -flatten -top X; stat`) and checks the number of cells against a budget, and/or checks
 * that it is a flat gate-level netlist (`gate_level`).
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
    /**
     * The design must be a flat gate-level netlist, as yosys writes one after synthesis: one module
     * (the top), and after `proc` only 1-bit cells (gates, flip-flops, 2-input muxes), no memories.
     * RTL fails: its adders, comparators and registers are multi-bit cells.
     */
    gate_level: z.boolean().default(false),
    image: z.string().default(CLI_IMAGE),
    timeout_sec: z.number().positive().default(60),
  })
  .refine(
    (p) => p.reference !== undefined || p.max_cells !== undefined || p.gate_level,
    'give reference, max_cells or gate_level: true (or several)',
  );
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
  if (p.gate_level)
    lines.push(
      `yosys -p 'read_verilog -sv ${DESIGN}; hierarchy -check -top ${t}; proc; tee -q -o mods.txt ls; select -assert-none r:A_WIDTH>1 r:B_WIDTH>1 r:Y_WIDTH>1 r:WIDTH>1 t:$mem* t:$mem_v2' > gate.log 2>&1; echo "${mark('GATE-EXIT')} $? $(grep -m1 modules mods.txt)"; grep -A3 'selection is not empty' gate.log | tail -3`,
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
  /** `gate_level`: the module count, and up to three cells that are not 1-bit (empty when none). */
  gate?: { modules: number; wide: string[] };
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
  const gate = new RegExp(`${mark('GATE-EXIT')} (\\d+) (\\d+) modules`).exec(stdout);
  if (gate !== null) {
    const tail = stdout.slice(gate.index).split('\n').slice(1, 4);
    const wide = gate[1] === '0' ? [] : tail.map((l) => l.trim()).filter((l) => l.includes('$'));
    r.gate = { modules: Number(gate[2]), wide: gate[1] !== '0' && wide.length === 0 ? ['(unnamed)'] : wide };
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
      ...(p.gate_level ? { gate_level: true } : {}),
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
    if (p.gate_level) {
      if (r.gate === undefined) {
        ok = false;
        parts.push('yosys printed no gate-level result');
      } else {
        const flat = r.gate.modules === 1 && r.gate.wide.length === 0;
        ok &&= flat;
        parts.push(
          flat
            ? 'a flat gate-level netlist (one module, 1-bit cells only)'
            : `NOT a flat gate-level netlist: ${r.gate.modules} module(s)${r.gate.wide.length ? `, multi-bit cells such as ${r.gate.wide.join(', ')}` : ''} (synthesise it, e.g. synth -flatten, and deliver what write_verilog wrote)`,
        );
      }
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
        ...(r.gate !== undefined
          ? { gate_level: r.gate.modules === 1 && r.gate.wide.length === 0, modules: r.gate.modules }
          : {}),
      },
      expected,
      tolerance: p.max_cells !== undefined ? `cells ≤ ${p.max_cells}` : 'every $equiv cell proven',
      reason: `${read.rel}: ${parts.join('; ')}`,
    };
  },
};
