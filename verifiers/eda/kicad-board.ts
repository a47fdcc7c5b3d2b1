/**
 * `kicad.board`: checks a KiCad board (.kicad_pcb). In-process (S-expression parse): netlist
 * connectivity as F1 over (reference.pin ↔ net) pairs with nets named by their pin sets, and board
 * facts (outline size, copper layer count, footprint count). In a fresh kicad container: DRC through
 * pcbnew's Python API, gated on violations and unconnected items. Each group given in the params is
 * one check; the verdict passes when all pass, and the score is the mean of the checks' scores
 * (netlist: its F1).
 */
import { z } from 'zod';
import { readDeliverable } from '../deliverable.js';
import { isArtifactInvalid } from '../errors.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { KICAD_IMAGE, parseDrcReport, runDrc } from './kicad-drc.js';
import { boardNets, compareNetlists, readKicadPcb, type KicadBoardFacts } from './kicad-pcb.js';

const pin = z.string().regex(/^[^.\s]+\.[^.\s]+$/, 'a pin such as R1.2');

/** Params of `kicad.board`; give at least one of `drc`, `netlist`, `board`. */
export const KicadBoardParams = z
  .object({
    /** Run DRC: gates on violations (of the counted severities) and unconnected items. */
    drc: z
      .object({
        max_violations: z.number().int().nonnegative().default(0),
        max_unconnected: z.number().int().nonnegative().default(0),
        /** Severities counted as violations. Default `error` and `warning`. */
        severities: z.array(z.enum(['error', 'warning'])).default(['error', 'warning']),
      })
      .optional(),
    /** Expected nets: name → pins. Names are labels only; the pin sets are compared. */
    netlist: z
      .object({
        nets: z.record(z.string(), z.array(pin).min(1)),
        /** F1 needed to pass. Default 1 (every pin on exactly the right net). */
        min_f1: z.number().min(0).max(1).default(1),
      })
      .optional(),
    /** Board facts. */
    board: z
      .object({
        width_mm: z.number().positive().optional(),
        height_mm: z.number().positive().optional(),
        size_tol_mm: z.number().nonnegative().default(0.1),
        copper_layers: z.number().int().positive().optional(),
        footprints: z.number().int().nonnegative().optional(),
      })
      .optional(),
    image: z.string().default(KICAD_IMAGE),
    timeout_sec: z.number().positive().default(60),
  })
  .refine(
    (p) => p.drc !== undefined || p.netlist !== undefined || p.board !== undefined,
    'give drc, netlist or board',
  );
export type KicadBoardParams = z.infer<typeof KicadBoardParams>;

interface Check {
  name: string;
  passed: boolean;
  score: number;
  measured: unknown;
  expected: unknown;
  detail: string;
}

/** The `kicad.board` verifier. */
export const kicadBoard: Verifier = {
  name: 'kicad.board',
  description:
    'Checks a KiCad board: DRC via pcbnew (violations, unconnected items), netlist F1 over pin↔net pairs, outline/layers/footprints',
  params: KicadBoardParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = KicadBoardParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    let facts: KicadBoardFacts;
    try {
      facts = readKicadPcb(read.bytes.toString('utf8'), read.rel);
    } catch (err) {
      if (isArtifactInvalid(err)) return { passed: false, score: 0, reason: err.message };
      throw err;
    }
    const checks: Check[] = [];
    if (p.board !== undefined) checks.push(boardCheck(p.board, facts));
    if (p.netlist !== undefined) checks.push(netlistCheck(p.netlist, facts));
    if (p.drc !== undefined) {
      const drc = p.drc;
      const run = await runDrc(ctx.runTool, read.path, {
        image: p.image,
        timeoutMs: p.timeout_sec * 1000,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      const report = run.ok ? parseDrcReport(run.report) : undefined;
      const expected = {
        max_violations: drc.max_violations,
        max_unconnected: drc.max_unconnected,
        severities: drc.severities,
      };
      if (!run.ok || report === undefined)
        checks.push({
          name: 'drc',
          passed: false,
          score: 0,
          measured: null,
          expected,
          detail: run.ok ? 'the DRC report could not be read' : run.reason,
        });
      else {
        const counted = drc.severities.reduce((s, sev) => s + (report.violations[sev] ?? 0), 0);
        const ok = counted <= drc.max_violations && report.unconnected <= drc.max_unconnected;
        checks.push({
          name: 'drc',
          passed: ok,
          score: ok ? 1 : 0,
          measured: {
            violations: counted,
            by_severity: report.violations,
            unconnected: report.unconnected,
            first: report.items.slice(0, 5),
          },
          expected,
          detail: `DRC: ${counted} violation(s) (${drc.severities.join('/')}; allowed ${drc.max_violations}), ${report.unconnected} unconnected item(s) (allowed ${drc.max_unconnected})${ok ? '' : `: ${report.items.slice(0, 2).join('; ')}`}`,
        });
      }
    }
    const passed = checks.every((c) => c.passed);
    return {
      passed,
      score: checks.reduce((s, c) => s + c.score, 0) / checks.length,
      measured: Object.fromEntries(checks.map((c) => [c.name, c.measured])),
      expected: Object.fromEntries(checks.map((c) => [c.name, c.expected])),
      tolerance: {
        ...(p.board ? { size_mm: p.board.size_tol_mm } : {}),
        ...(p.netlist ? { min_f1: p.netlist.min_f1 } : {}),
      },
      reason: `${read.rel} (KiCad board format ${facts.version}): ${checks.map((c) => `${c.passed ? 'ok' : 'FAIL'} ${c.detail}`).join('; ')}`,
    };
  },
};

function boardCheck(b: NonNullable<KicadBoardParams['board']>, f: KicadBoardFacts): Check {
  const width = f.outline === undefined ? undefined : f.outline.maxX - f.outline.minX;
  const height = f.outline === undefined ? undefined : f.outline.maxY - f.outline.minY;
  const bad: string[] = [];
  const near = (got: number | undefined, want: number | undefined, what: string): void => {
    if (want === undefined) return;
    if (got === undefined) bad.push(`no Edge.Cuts outline for ${what}`);
    else if (Math.abs(got - want) > b.size_tol_mm)
      bad.push(`${what} ${got.toFixed(2)} mm, expected ${want} ± ${b.size_tol_mm}`);
  };
  near(width, b.width_mm, 'width');
  near(height, b.height_mm, 'height');
  if (b.copper_layers !== undefined && f.copperLayers.length !== b.copper_layers)
    bad.push(`${f.copperLayers.length} copper layers, expected ${b.copper_layers}`);
  if (b.footprints !== undefined && f.footprints.length !== b.footprints)
    bad.push(`${f.footprints.length} footprints, expected ${b.footprints}`);
  const measured = {
    width_mm: width,
    height_mm: height,
    copper_layers: f.copperLayers.length,
    footprints: f.footprints.length,
    tracks: f.tracks,
    vias: f.vias,
  };
  const fmt = (x: number | undefined): string => (x === undefined ? '?' : x.toFixed(2));
  return {
    name: 'board',
    passed: bad.length === 0,
    score: bad.length === 0 ? 1 : 0,
    measured,
    expected: {
      width_mm: b.width_mm,
      height_mm: b.height_mm,
      copper_layers: b.copper_layers,
      footprints: b.footprints,
    },
    detail:
      bad.length === 0
        ? `board ${fmt(width)} × ${fmt(height)} mm, ${f.copperLayers.length} copper layers, ${f.footprints.length} footprints`
        : `board: ${bad.join(', ')}`,
  };
}

function netlistCheck(n: NonNullable<KicadBoardParams['netlist']>, f: KicadBoardFacts): Check {
  const m = compareNetlists(Object.values(n.nets), boardNets(f));
  const ok = m.f1 >= n.min_f1;
  const r3 = (x: number): number => Number(x.toFixed(3));
  return {
    name: 'netlist',
    passed: ok,
    score: m.f1,
    measured: {
      f1: r3(m.f1),
      precision: r3(m.precision),
      recall: r3(m.recall),
      missing: m.missing,
      extra: m.extra,
    },
    expected: { nets: n.nets, min_f1: n.min_f1 },
    detail: `netlist F1 ${r3(m.f1)} (P ${r3(m.precision)}, R ${r3(m.recall)}; need ≥ ${n.min_f1})${m.missing.length > 0 ? `; first pins on a wrong or missing net: ${m.missing.slice(0, 3).join(', ')}` : ''}`,
  };
}
