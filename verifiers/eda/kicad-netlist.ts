/**
 * `kicad.netlist`: checks a netlist exported by KiCad's schematic editor (File → Export → Netlist,
 * KiCad tab): `(export (version "E") … (components (comp (ref "R1") (value "10k") …)) (nets (net
 * (code "1") (name "…") (node (ref "R1") (pin "1")) …)))`. Read in-process with the `s-expression`
 * parser. Two checks, each present when its params are given: the components (reference → value,
 * footprint, library part) and the connectivity (groups of pins that must share a net, scored by
 * F1 over the pin pairs that share a net, so net names and net order do not matter). The verdict
 * passes when every check passes; its score is the mean of the checks' scores.
 */
import parse, { type SExpr } from 's-expression';
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { ArtifactInvalidError } from '../errors.js';
import type { Verdict } from '../types.js';
import { atom, children, head, isList, round3 } from './sexpr.js';

const pin = z.string().regex(/^[^.\s]+\.[^.\s]+$/, 'a pin such as R1.2');

/** Params of `kicad.netlist`; give `components`, `connectivity` or both. */
export const KicadNetlistParams = z
  .object({
    /** Expected components by reference. Values compare as numbers when both read as one (4k7 = 4.7k). */
    components: z
      .object({
        expected: z.record(
          z.string().min(1),
          z.object({
            value: z.string().optional(),
            footprint: z.string().optional(),
            /** Library part as `Library:Part`, e.g. `Device:R`. */
            part: z
              .string()
              .regex(/^[^:]+:[^:]+$/, 'Library:Part')
              .optional(),
          }),
        ),
        /** Components not listed are allowed. Default false: an extra part fails the check. */
        allow_extra: z.boolean().default(false),
      })
      .optional(),
    /**
     * Expected nets: name → pins that must share one net (names are labels; a one-pin group means
     * that pin connects to none of the other listed pins). Pins not listed anywhere are ignored.
     */
    connectivity: z
      .object({
        nets: z.record(z.string(), z.array(pin).min(1)),
        /** Pin-pair F1 needed to pass. Default 1. */
        min_f1: z.number().min(0).max(1).default(1),
      })
      .optional(),
  })
  .refine(
    (p) => p.components !== undefined || p.connectivity !== undefined,
    'give components or connectivity',
  );
export type KicadNetlistParams = z.infer<typeof KicadNetlistParams>;

/** What `readKicadNetlist` gives. */
export interface KicadNetlist {
  /** Netlist format version: `E` for KiCad 6, `D` for KiCad 5. */
  version: string;
  components: { ref: string; value: string; footprint: string; part: string }[];
  /** Nets with their pins as `REF.PIN`. */
  nets: { name: string; pins: string[] }[];
}

const field = (x: SExpr[] | undefined, name: string): string | undefined =>
  x === undefined ? undefined : atom(children(x, name)[0]?.[1]);

/** Parses KiCad netlist text. Throws `ArtifactInvalidError` for anything else. */
function readKicadNetlist(text: string): KicadNetlist {
  if (!/^\s*\(export\b/.test(text)) {
    const t = text.trimStart();
    const seen = t.startsWith('( {')
      ? ' (it looks like an OrcadPCB2 netlist: export from the KiCad tab)'
      : /^(\*|\.title)/i.test(t)
        ? ' (it looks like a SPICE netlist: export from the KiCad tab)'
        : '';
    throw new ArtifactInvalidError(`is not a KiCad netlist: it does not start with "(export"${seen}`);
  }
  const tree = parse(text);
  if (tree instanceof Error)
    throw new ArtifactInvalidError(`is not a valid S-expression (truncated or corrupt): ${tree.message}`);
  if (!isList(tree) || head(tree) !== 'export') throw new ArtifactInvalidError('is not a KiCad netlist');
  const components = children(children(tree, 'components')[0] ?? [], 'comp').map((c) => {
    const lib = children(c, 'libsource')[0];
    return {
      ref: field(c, 'ref') ?? '?',
      value: field(c, 'value') ?? '',
      footprint: field(c, 'footprint') ?? '',
      part: lib === undefined ? '' : `${field(lib, 'lib') ?? ''}:${field(lib, 'part') ?? ''}`,
    };
  });
  const nets = children(children(tree, 'nets')[0] ?? [], 'net').map((n) => ({
    name: field(n, 'name') ?? field(n, 'code') ?? '?',
    pins: children(n, 'node').map((node) => `${field(node, 'ref') ?? '?'}.${field(node, 'pin') ?? '?'}`),
  }));
  return { version: field(tree, 'version') ?? '?', components, nets };
}

const MULTIPLIER: Record<string, number> = {
  p: 1e-12,
  n: 1e-9,
  u: 1e-6,
  µ: 1e-6,
  μ: 1e-6,
  m: 1e-3,
  R: 1,
  r: 1,
  k: 1e3,
  K: 1e3,
  M: 1e6,
  Meg: 1e6,
  MEG: 1e6,
  meg: 1e6,
  G: 1e9,
};

/** A component value as a number (`4.7k`, `4k7`, `10 kΩ`, `100n`, `4R7`), or `undefined`. */
export function componentValue(s: string): number | undefined {
  const m = /^(\d+)(?:\.(\d+))?\s*(Meg|MEG|meg|[pnuµμmRrkKMG])?(\d*)\s*(?:Ω|ohms?|F|H)?$/.exec(s.trim());
  if (m === null || (m[2] !== undefined && m[4] !== '') || (m[3] === undefined && m[4] !== ''))
    return undefined;
  return Number(`${m[1]}.${m[2] ?? m[4] ?? ''}`) * (m[3] === undefined ? 1 : MULTIPLIER[m[3]]!);
}

/** Values match as text (case-insensitive) or as numbers within 1e-9 relative. */
function sameValue(got: string, want: string): boolean {
  if (got.trim().toLowerCase() === want.trim().toLowerCase()) return true;
  const [a, b] = [componentValue(got), componentValue(want)];
  return a !== undefined && b !== undefined && Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/** Result of `comparePinPairs`. */
export interface PinPairMatch {
  precision: number;
  recall: number;
  f1: number;
  /** Expected connections that are not there, as `A.1–B.2 (NET)`, first few. */
  missing: string[];
  /** Connections between listed pins that should not be there, as `A.1–B.2 (net name)`, first few. */
  extra: string[];
  /** Listed pins found on no net at all (a missing component or pin). */
  absent: string[];
}

/**
 * F1 over the unordered pairs of pins that share a net: expected pairs from `expected` (name →
 * pins), delivered pairs from `delivered` restricted to the pins named in `expected`.
 *
 * @example comparePinPairs({ GND: ['R2.2', 'J1.3'] }, [{ name: 'x', pins: ['R2.2'] }]).recall // 0
 */
export function comparePinPairs(
  expected: Record<string, string[]>,
  delivered: { name: string; pins: string[] }[],
): PinPairMatch {
  const listed = new Set(Object.values(expected).flat());
  const pairs = (groups: [string, string[]][]): Map<string, string> => {
    const out = new Map<string, string>();
    for (const [name, pins] of groups) {
      const ps = [...new Set(pins)].filter((p) => listed.has(p)).sort();
      for (let i = 0; i < ps.length; i++)
        for (let j = i + 1; j < ps.length; j++) out.set(`${ps[i]}–${ps[j]}`, name);
    }
    return out;
  };
  const e = pairs(Object.entries(expected));
  const d = pairs(delivered.map((n) => [n.name, n.pins]));
  const hit = [...e.keys()].filter((k) => d.has(k)).length;
  const precision = d.size === 0 ? 1 : hit / d.size;
  const recall = e.size === 0 ? 1 : hit / e.size;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  const onNet = new Set(delivered.flatMap((n) => n.pins));
  return {
    precision,
    recall,
    f1,
    missing: [...e]
      .filter(([k]) => !d.has(k))
      .map(([k, n]) => `${k} (${n})`)
      .slice(0, 5),
    extra: [...d]
      .filter(([k]) => !e.has(k))
      .map(([k, n]) => `${k} (${n})`)
      .slice(0, 5),
    absent: [...listed].filter((p) => !onNet.has(p)).sort(),
  };
}

interface Check {
  name: string;
  passed: boolean;
  score: number;
  measured: unknown;
  detail: string;
}

/** The `kicad.netlist` verifier. */
export const kicadNetlist = defineVerifier({
  name: 'kicad.netlist',
  description:
    'Checks a KiCad schematic netlist export (.net): components (value, footprint, library part) and connectivity as pin-pair F1',
  params: KicadNetlistParams,
  judge({ params: p, file }): Verdict {
    const net = readKicadNetlist(file.bytes.toString('utf8'));
    const checks: Check[] = [];
    if (p.components !== undefined) checks.push(componentsCheck(p.components, net));
    if (p.connectivity !== undefined) checks.push(connectivityCheck(p.connectivity, net));
    const unannotated = net.components.filter((c) => c.ref.endsWith('?')).map((c) => c.ref);
    const hint =
      unannotated.length > 0 && checks.some((c) => !c.passed)
        ? ` (${unannotated.length} symbol(s) not annotated, e.g. ${unannotated[0]}: Tools → Annotate Schematic before exporting)`
        : '';
    return {
      passed: checks.every((c) => c.passed),
      score: checks.reduce((s, c) => s + c.score, 0) / checks.length,
      measured: Object.fromEntries(checks.map((c) => [c.name, c.measured])),
      expected: {
        ...(p.components ? { components: p.components.expected } : {}),
        ...(p.connectivity ? { connectivity: p.connectivity.nets } : {}),
      },
      ...(p.connectivity ? { tolerance: { min_f1: p.connectivity.min_f1 } } : {}),
      reason: `${file.rel} (KiCad netlist version ${net.version}, ${net.components.length} component(s), ${net.nets.length} net(s)): ${checks.map((c) => `${c.passed ? 'ok' : 'FAIL'} ${c.detail}`).join('; ')}${hint}`,
    };
  },
});

function componentsCheck(c: NonNullable<KicadNetlistParams['components']>, net: KicadNetlist): Check {
  const byRef = new Map(net.components.map((x) => [x.ref, x]));
  const bad: string[] = [];
  let ok = 0;
  for (const [ref, want] of Object.entries(c.expected)) {
    const got = byRef.get(ref);
    const wrong: string[] = [];
    if (got === undefined) wrong.push(`${ref} missing`);
    else {
      if (want.part !== undefined && got.part !== want.part)
        wrong.push(`${ref} is ${got.part}, expected ${want.part}`);
      if (want.value !== undefined && !sameValue(got.value, want.value))
        wrong.push(`${ref} value "${got.value}", expected "${want.value}"`);
      if (want.footprint !== undefined && got.footprint !== want.footprint)
        wrong.push(`${ref} footprint "${got.footprint}", expected "${want.footprint}"`);
    }
    if (wrong.length === 0) ok++;
    bad.push(...wrong);
  }
  const extra = c.allow_extra ? [] : net.components.filter((x) => !(x.ref in c.expected));
  bad.push(...extra.map((x) => `extra component ${x.ref} (${x.part} ${x.value})`));
  const total = Object.keys(c.expected).length + extra.length;
  return {
    name: 'components',
    passed: bad.length === 0,
    score: total === 0 ? 1 : ok / total,
    measured: Object.fromEntries(
      net.components.map((x) => [x.ref, { value: x.value, footprint: x.footprint, part: x.part }]),
    ),
    detail:
      bad.length === 0
        ? `components ${Object.keys(c.expected).join(', ')} as expected`
        : `components: ${bad.slice(0, 4).join(', ')}${bad.length > 4 ? ` (+${bad.length - 4} more)` : ''}`,
  };
}

function connectivityCheck(c: NonNullable<KicadNetlistParams['connectivity']>, net: KicadNetlist): Check {
  const m = comparePinPairs(c.nets, net.nets);
  const passed = m.f1 >= c.min_f1;
  const why = [
    m.missing.length > 0 ? `missing connections: ${m.missing.slice(0, 3).join(', ')}` : '',
    m.extra.length > 0 ? `unexpected connections: ${m.extra.slice(0, 3).join(', ')}` : '',
    m.absent.length > 0 ? `pins on no net: ${m.absent.slice(0, 4).join(', ')}` : '',
  ].filter(Boolean);
  return {
    name: 'connectivity',
    passed,
    score: m.f1,
    measured: {
      f1: round3(m.f1),
      precision: round3(m.precision),
      recall: round3(m.recall),
      missing: m.missing,
      extra: m.extra,
      absent: m.absent,
    },
    detail: `connectivity pin-pair F1 ${round3(m.f1)} (P ${round3(m.precision)}, R ${round3(m.recall)}; need ≥ ${c.min_f1})${why.length > 0 ? `; ${why.join('; ')}` : ''}`,
  };
}
