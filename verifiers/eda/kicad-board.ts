/**
 * `kicad.board`: checks a KiCad board (.kicad_pcb). In-process (S-expression parse): netlist
 * connectivity as F1 over (reference.pin ↔ net) pairs with nets named by their pin sets, and board
 * facts (outline size, copper layer count, footprint count). In a fresh kicad container: DRC
 * recomputed by pcbnew's Python API on the board alone (KiCad's default rules, no project
 * exclusions), gated on violations and unconnected items. The board's own word is never the
 * evidence: net classes written into the board file are removed before DRC (and fail it when they
 * lower a default rule), and a DRC report the task delivers is only compared with the recomputed
 * one. Each group given in the params is one check; the verdict passes when all pass, and the score
 * is the mean of the checks' scores (netlist: its F1).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineVerifier, type Artifact } from '../define.js';
import { deliverablePath } from '../deliverable.js';
import type { Verdict, VerifierContext } from '../types.js';
import { KICAD_IMAGE, parseDrcReport, runDrc, type DrcReport } from './kicad-drc.js';
import {
  boardNets,
  compareNetlists,
  DEFAULT_NET_CLASS,
  readKicadPcb,
  withoutNetClasses,
  type KicadBoardFacts,
} from './kicad-pcb.js';
import { round3 } from './sexpr.js';

const pin = z.string().regex(/^[^.\s]+\.[^.\s]+$/, 'a pin such as R1.2');

/** Params of `kicad.board`; give at least one of `drc`, `netlist`, `board`. */
const KicadBoardParams = z
  .object({
    /** Run DRC: gates on violations (of the counted severities) and unconnected items. */
    drc: z
      .object({
        max_violations: z.number().int().nonnegative().default(0),
        max_unconnected: z.number().int().nonnegative().default(0),
        /** Severities counted as violations. Default `error` and `warning`. */
        severities: z.array(z.enum(['error', 'warning'])).default(['error', 'warning']),
        /**
         * A DRC report the task delivers (deliverable path). It is never the evidence: DRC is
         * recomputed, and the report's counts must agree with it or the `drc_report` check fails.
         */
        report: z.string().min(1).optional(),
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
export const kicadBoard = defineVerifier({
  name: 'kicad.board',
  description:
    'Checks a KiCad board: DRC recomputed by pcbnew with default rules (violations, unconnected items; a delivered report must agree), netlist F1 over pin↔net pairs, outline/layers/footprints',
  params: KicadBoardParams,
  async judge({ ctx, params: p, file }): Promise<Verdict> {
    const text = file.bytes.toString('utf8');
    const facts = readKicadPcb(text);
    const checks: Check[] = [];
    if (p.board !== undefined) checks.push(boardCheck(p.board, facts));
    if (p.netlist !== undefined) checks.push(netlistCheck(p.netlist, facts));
    if (p.drc !== undefined) checks.push(...(await drcChecks(ctx, p, file, text, facts)));
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
      reason: `${file.rel} (KiCad board format ${facts.version}): ${checks.map((c) => `${c.passed ? 'ok' : 'FAIL'} ${c.detail}`).join('; ')}`,
    };
  },
});

/**
 * DRC by pcbnew in a fresh container, on the board alone (no project file, so KiCad's default rules
 * and no exclusions). Net classes the board file defines itself are removed first and, when they
 * lower a default rule, fail the check by name. A delivered report (`drc.report`) is compared with
 * the recomputed one and never used as the evidence.
 */
async function drcChecks(
  ctx: VerifierContext,
  p: KicadBoardParams,
  file: Artifact,
  text: string,
  facts: KicadBoardFacts,
): Promise<Check[]> {
  const drc = p.drc!;
  const expected = {
    max_violations: drc.max_violations,
    max_unconnected: drc.max_unconnected,
    severities: drc.severities,
  };
  const lowered = facts.netClasses.flatMap((nc) =>
    Object.entries(nc.rules)
      .filter(([k, v]) => v < DEFAULT_NET_CLASS[k]!)
      .map(([k, v]) => `net class "${nc.name}" ${k} ${v} mm (default ${DEFAULT_NET_CLASS[k]} mm)`),
  );
  let board = file.path;
  const dir = facts.netClasses.length > 0 ? await mkdtemp(path.join(tmpdir(), 'engiloop-kicad-')) : undefined;
  try {
    if (dir !== undefined) {
      board = path.join(dir, 'board.kicad_pcb');
      await writeFile(board, withoutNetClasses(text));
    }
    const run = await runDrc(ctx.runTool, board, {
      image: p.image,
      timeoutMs: p.timeout_sec * 1000,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    const report = run.ok ? parseDrcReport(run.report) : undefined;
    if (!run.ok || report === undefined)
      return [
        {
          name: 'drc',
          passed: false,
          score: 0,
          measured: null,
          expected,
          detail: run.ok ? 'the DRC report could not be read' : run.reason,
        },
      ];
    const counted = drc.severities.reduce((s, sev) => s + (report.violations[sev] ?? 0), 0);
    const ok =
      counted <= drc.max_violations && report.unconnected <= drc.max_unconnected && lowered.length === 0;
    const rules =
      lowered.length > 0
        ? `; the board lowers KiCad's default design rules (${lowered.slice(0, 2).join(', ')}): its net classes were removed and DRC ran with the defaults`
        : '';
    const checks: Check[] = [
      {
        name: 'drc',
        passed: ok,
        score: ok ? 1 : 0,
        measured: {
          violations: counted,
          by_severity: report.violations,
          unconnected: report.unconnected,
          first: report.items.slice(0, 5),
          ...(lowered.length > 0 ? { lowered_rules: lowered } : {}),
        },
        expected,
        detail: `DRC (pcbnew, recomputed): ${counted} violation(s) (${drc.severities.join('/')}; allowed ${drc.max_violations}), ${report.unconnected} unconnected item(s) (allowed ${drc.max_unconnected})${counted > drc.max_violations || report.unconnected > drc.max_unconnected ? `: ${report.items.slice(0, 2).join('; ')}` : ''}${rules}`,
      },
    ];
    if (drc.report !== undefined) checks.push(await reportCheck(ctx, drc.report, report, file.rel));
    return checks;
  } finally {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}

/** A delivered DRC report against the recomputed one: the counts must agree. */
async function reportCheck(
  ctx: VerifierContext,
  rel: string,
  actual: DrcReport,
  board: string,
): Promise<Check> {
  const full = deliverablePath(ctx, rel);
  const text = full === null ? undefined : await readFile(full, 'utf8').catch(() => undefined);
  const claimed = text === undefined ? undefined : parseDrcReport(text);
  const expected = { violations: actual.violationTotal, unconnected: actual.unconnected };
  const base = { name: 'drc_report', expected };
  if (text === undefined)
    return { ...base, passed: false, score: 0, measured: null, detail: `DRC report ${rel} is missing` };
  if (claimed === undefined)
    return {
      ...base,
      passed: false,
      score: 0,
      measured: null,
      detail: `DRC report ${rel} is not a KiCad DRC report`,
    };
  const agrees =
    claimed.violationTotal === actual.violationTotal && claimed.unconnected === actual.unconnected;
  return {
    ...base,
    passed: agrees,
    score: agrees ? 1 : 0,
    measured: { violations: claimed.violationTotal, unconnected: claimed.unconnected },
    detail: agrees
      ? `delivered DRC report ${rel} agrees with the recomputed DRC`
      : `delivered DRC report ${rel} claims ${claimed.violationTotal} violation(s) and ${claimed.unconnected} unconnected item(s), pcbnew finds ${actual.violationTotal} and ${actual.unconnected} on ${board}: the report was not produced from this board`,
  };
}

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
  const mm = (x: number | undefined): string => (x === undefined ? '?' : x.toFixed(2));
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
        ? `board ${mm(width)} × ${mm(height)} mm, ${f.copperLayers.length} copper layers, ${f.footprints.length} footprints`
        : `board: ${bad.join(', ')}`,
  };
}

function netlistCheck(n: NonNullable<KicadBoardParams['netlist']>, f: KicadBoardFacts): Check {
  const m = compareNetlists(Object.values(n.nets), boardNets(f));
  const ok = m.f1 >= n.min_f1;
  return {
    name: 'netlist',
    passed: ok,
    score: m.f1,
    measured: {
      f1: round3(m.f1),
      precision: round3(m.precision),
      recall: round3(m.recall),
      missing: m.missing,
      extra: m.extra,
    },
    expected: { nets: n.nets, min_f1: n.min_f1 },
    detail: `netlist F1 ${round3(m.f1)} (P ${round3(m.precision)}, R ${round3(m.recall)}; need ≥ ${n.min_f1})${m.missing.length > 0 ? `; first pins on a wrong or missing net: ${m.missing.slice(0, 3).join(', ')}` : ''}`,
  };
}
