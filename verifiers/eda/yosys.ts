/**
 * `yosys.equivalence`: in a fresh tool container, yosys 0.23 proves the delivered design equivalent
 * to a hidden reference (`equiv_make` / `equiv_simple -seq N` / `equiv_induct` /
 * `equiv_status -assert`, which fails on any unproven `$equiv` cell), and/or checks that it is a
 * flat gate-level netlist (`gate_level`), and/or synthesises it (`synth -flatten -top X`, or the
 * task's script) and checks its cells: a budget (`max_cells`), the count (`cells`), counts per cell
 * type (`cell_types`) and the flip-flop count (`flip_flops`), each exact or a range. A statistics
 * report the agent delivered (`report`: `stat` text, `stat -json` or a `write_json` netlist) is read
 * only after the re-synthesis and must agree with it; the re-synthesis is the evidence.
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { deliverablePath } from '../deliverable.js';
import { RangeSchema, taskFile } from '../params.js';
import type { Verdict } from '../types.js';
import { CLI_IMAGE } from './ngspice.js';
import { DESIGN, GOLD, readYosysOutput, STAT_JSON, yosysCommand } from './yosys-run.js';
import {
  flipFlops,
  readReport,
  readStatJson,
  statDifferences,
  typeList,
  type CellStats,
} from './yosys-stat.js';

export { readYosysOutput } from './yosys-run.js';

/** A count: exact (`12`) or a range (`{ min: 8, max: 16 }`). */
const Count = z.union([z.number().int().nonnegative(), RangeSchema]);
type Count = z.infer<typeof Count>;

/** Params of `yosys.equivalence`; give at least one check. */
export const YosysEquivalenceParams = z
  .object({
    /** Reference design relative to the task folder, e.g. `hidden/adder8_ref.v`. */
    reference: taskFile().optional(),
    /** Top module (same name in both designs). */
    top: z.string().regex(/^[A-Za-z_][A-Za-z0-9_$]*$/, 'a Verilog identifier'),
    /** Cycles `equiv_simple -seq` looks back (sequential designs). Default 5. */
    seq: z.number().int().min(0).max(50).default(5),
    /** Cell budget: the synthesised design has at most this many cells. */
    max_cells: z.number().int().positive().optional(),
    /** Number of cells after synthesis: exact, or `{ min, max }`. */
    cells: Count.optional(),
    /** Cells per yosys type after synthesis, e.g. `{ $_XOR_: 16, $_AND_: { max: 8 } }`. */
    cell_types: z.record(z.string().regex(/^\$/, 'a yosys cell type such as $_AND_'), Count).optional(),
    /** Flip-flop cells after synthesis (types with `DFF` in their name): exact, or `{ min, max }`. */
    flip_flops: Count.optional(),
    /**
     * A statistics report the task delivers (deliverable path: `stat` text, `stat -json`, or a
     * `write_json` netlist). It must agree with the re-synthesis, cell for cell, or the check fails.
     */
    report: z.string().min(1).optional(),
    /** Synthesis commands (yosys script) before `stat`. Default `synth -flatten -top <top>`. */
    synth_script: z
      .string()
      .min(1)
      .refine((s) => !/['\\]/.test(s), "no quotes or backslashes (it is passed to yosys -p '…')")
      .optional(),
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
    (p) =>
      p.reference !== undefined ||
      p.gate_level ||
      [p.max_cells, p.cells, p.cell_types, p.flip_flops, p.report].some((x) => x !== undefined),
    'give reference, gate_level: true, max_cells, cells, cell_types, flip_flops or report (or several)',
  );
export type YosysEquivalenceParams = z.infer<typeof YosysEquivalenceParams>;

/** One part of the verdict. */
interface Part {
  ok: boolean;
  text: string;
}

const within = (n: number, c: Count): boolean =>
  typeof c === 'number'
    ? n === c
    : (c.min === undefined || n >= c.min) && (c.max === undefined || n <= c.max);
const countText = (c: Count): string =>
  typeof c === 'number'
    ? `= ${c}`
    : c.min === undefined
      ? `≤ ${c.max}`
      : c.max === undefined
        ? `≥ ${c.min}`
        : `in [${c.min}, ${c.max}]`;

/** The `yosys.equivalence` verifier. */
export const yosysEquivalence = defineVerifier({
  name: 'yosys.equivalence',
  description:
    'Proves a Verilog design equivalent to a hidden reference with yosys (equiv_*), checks it is gate-level, and/or checks its synthesised cells (count, per type, flip-flops; a delivered stat report must agree)',
  params: YosysEquivalenceParams,
  sealed: true,
  async judge({ ctx, params: p, file, nonce }): Promise<Verdict> {
    const synthScript = p.synth_script ?? `synth -flatten -top ${p.top}`;
    const wantsSynth = [p.max_cells, p.cells, p.cell_types, p.flip_flops, p.report].some(
      (x) => x !== undefined,
    );
    const expected = {
      ...(p.reference ? { equivalent_to: p.reference } : {}),
      ...(p.gate_level ? { gate_level: true } : {}),
      ...(p.max_cells ? { max_cells: p.max_cells } : {}),
      ...(p.cells !== undefined ? { cells: p.cells } : {}),
      ...(p.cell_types ? { cell_types: p.cell_types } : {}),
      ...(p.flip_flops !== undefined ? { flip_flops: p.flip_flops } : {}),
      ...(p.report ? { report_agrees: p.report } : {}),
    };
    const fail = (reason: string, measured?: unknown): Verdict => ({
      passed: false,
      score: 0,
      expected,
      ...(measured === undefined ? {} : { measured }),
      reason,
    });
    const files = [{ hostPath: file.path, dest: DESIGN }];
    if (p.reference !== undefined) {
      const gold = path.join(ctx.taskDir, p.reference);
      if (
        !(await access(gold).then(
          () => true,
          () => false,
        ))
      )
        return fail(`task error: reference ${p.reference} is not in the task folder`);
      files.push({ hostPath: gold, dest: GOLD });
    }
    const job = {
      top: p.top,
      gateLevel: p.gate_level,
      ...(p.reference !== undefined ? { equiv: { seq: p.seq } } : {}),
      ...(wantsSynth ? { synth: synthScript } : {}),
    };
    const res = await ctx.runTool(
      {
        image: p.image,
        command: yosysCommand(job, nonce),
        files,
        timeoutMs: p.timeout_sec * 1000,
        collect: wantsSynth ? [STAT_JSON] : [],
      },
      ctx.signal,
    );
    if (res.timedOut) return fail(`yosys timed out after ${p.timeout_sec} s on ${file.rel}`);
    const r = readYosysOutput(res.stdout, nonce);
    if (r.readError !== undefined)
      return fail(`yosys cannot read ${file.rel} with top ${p.top}: ${r.readError}`);
    if (r.printsMarker !== undefined)
      return fail(
        `${file.rel}: design prints a verifier marker while yosys reads it ("${r.printsMarker}"): an attempt to forge the verdict`,
        { refused: r.printsMarker },
      );
    const parts: Part[] = [];
    const measured: Record<string, unknown> = {};
    if (p.reference !== undefined) {
      if (r.equivalent === undefined)
        return fail(`yosys printed no equivalence result (exit ${res.exitCode}): ${res.stderr.slice(-300)}`);
      measured.equivalent = r.equivalent;
      measured.unproven = r.unproven ?? 0;
      parts.push({
        ok: r.equivalent,
        text: r.equivalent
          ? `equivalent to the reference (equiv_simple -seq ${p.seq} + equiv_induct)`
          : r.unproven !== undefined
            ? `NOT equivalent: ${r.unproven} unproven $equiv cell(s)`
            : `NOT equivalent: ${r.equivError ?? 'equivalence check failed'}`,
      });
    }
    if (p.gate_level) {
      if (r.gate === undefined) parts.push({ ok: false, text: 'yosys printed no gate-level result' });
      else {
        const flat = r.gate.modules === 1 && r.gate.wide.length === 0;
        measured.gate_level = flat;
        measured.modules = r.gate.modules;
        parts.push({
          ok: flat,
          text: flat
            ? 'a flat gate-level netlist (one module, 1-bit cells only)'
            : `NOT a flat gate-level netlist: ${r.gate.modules} module(s)${r.gate.wide.length ? `, multi-bit cells such as ${r.gate.wide.join(', ')}` : ''} (synthesise it, e.g. synth -flatten, and deliver what write_verilog wrote)`,
        });
      }
    }
    if (wantsSynth) {
      const json = res.files[STAT_JSON]?.toString('utf8');
      const stats = json === undefined ? undefined : readStatJson(json, p.top);
      if (r.synth === undefined || r.synth.exit !== 0 || stats === undefined)
        parts.push({
          ok: false,
          text: `synthesis (${synthScript}) failed: ${r.synth?.error ?? `no cell statistics (exit ${r.synth?.exit ?? res.exitCode})`}`,
        });
      else {
        measured.cells = stats.cells;
        measured.cell_types = stats.byType;
        measured.flip_flops = flipFlops(stats);
        parts.push(...cellParts(p, stats, synthScript));
        if (p.report !== undefined) {
          const rep = await reportPart(ctx.artifactsDir, p.report, p.top, stats, file.rel, synthScript);
          measured.report = rep.measured;
          parts.push(rep);
        }
      }
    }
    const ok = parts.every((x) => x.ok);
    return {
      passed: ok,
      score: ok ? 1 : 0,
      measured,
      expected,
      tolerance:
        p.max_cells !== undefined
          ? `cells ≤ ${p.max_cells}`
          : wantsSynth
            ? 'counts as given'
            : 'every $equiv cell proven',
      reason: `${file.rel}: ${parts.map((x) => x.text).join('; ')}`,
    };
  },
});

/** The cell-count checks the params ask for, on the re-synthesis. */
function cellParts(p: YosysEquivalenceParams, s: CellStats, script: string): Part[] {
  const parts: Part[] = [];
  // A cell type that is not a yosys primitive is a module synthesis left empty (a blackbox): the
  // logic inside it would go uncounted.
  const opaque = Object.entries(s.byType).filter(([t]) => !t.startsWith('$'));
  if (opaque.length > 0)
    parts.push({
      ok: false,
      text: `synthesis left ${opaque.map(([t, n]) => `${n} instance(s) of ${t}`).join(', ')}, a module with no synthesised logic (a blackbox): its cells would not be counted`,
    });
  const short = script === `synth -flatten -top ${p.top}` ? 'synth -flatten' : 'synthesis';
  if (p.max_cells !== undefined) {
    const ok = s.cells <= p.max_cells;
    parts.push({
      ok,
      text: `${s.cells} cells after ${short}, budget ${p.max_cells} → ${ok ? 'within' : 'over'}`,
    });
  }
  if (p.cells !== undefined) {
    const ok = within(s.cells, p.cells);
    parts.push({
      ok,
      text: `${s.cells} cells after ${short}, required ${countText(p.cells)}${ok ? '' : ' → wrong cell count'}`,
    });
  }
  if (p.cell_types !== undefined) {
    const bad = Object.entries(p.cell_types)
      .filter(([t, c]) => !within(s.byType[t] ?? 0, c))
      .map(([t, c]) => `${t} ${s.byType[t] ?? 0} (required ${countText(c)})`);
    parts.push({
      ok: bad.length === 0,
      text:
        bad.length === 0
          ? `cell types as required (${typeList(s.byType)})`
          : `wrong cell types: ${bad.join(', ')}; all: ${typeList(s.byType) || 'none'}`,
    });
  }
  if (p.flip_flops !== undefined) {
    const n = flipFlops(s);
    const ok = within(n, p.flip_flops);
    parts.push({
      ok,
      text: `${n} flip-flop(s), required ${countText(p.flip_flops)}${ok ? '' : ' → wrong flip-flop count'}`,
    });
  }
  return parts;
}

/** Compares a delivered report with the re-synthesis. */
async function reportPart(
  artifactsDir: string,
  rel: string,
  top: string,
  actual: CellStats,
  design: string,
  script: string,
): Promise<Part & { measured: unknown }> {
  const full = deliverablePath({ artifactsDir }, rel);
  const text = full === null ? undefined : await readFile(full, 'utf8').catch(() => undefined);
  if (text === undefined)
    return {
      ok: false,
      measured: null,
      text: `report ${rel} is missing (it was to be compared with the re-synthesis)`,
    };
  const rep = readReport(text, top);
  if (!rep.ok) return { ok: false, measured: null, text: `report ${rel} ${rep.reason}` };
  const diff = statDifferences(rep.stats, actual);
  const measured = { kind: rep.kind, cells: rep.stats.cells, agrees: diff.length === 0 };
  return diff.length === 0
    ? {
        ok: true,
        measured,
        text: `report ${rel} (${rep.kind}) agrees with the re-synthesis (${actual.cells} cells)`,
      }
    : {
        ok: false,
        measured,
        text: `report ${rel} (${rep.kind}) does not describe ${design}: it claims ${rep.stats.cells} cells, re-synthesis (${script}) gives ${actual.cells} (report vs re-synthesis: ${diff.slice(0, 4).join(', ')}): the report was edited or made from another design`,
      };
}
