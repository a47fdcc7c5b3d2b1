/**
 * Reading a `.kicad_pcb` (KiCad 6+ S-expression board) in-process with the `s-expression` parser:
 * copper layers, footprints with their pads' nets, and the Edge.Cuts outline. Also the netlist
 * comparison used by `kicad.board`: F1 over (reference.pin ↔ net) pairs where each net is named by
 * the set of pins it holds, so net names do not matter.
 */
import parse, { type SExpr } from 's-expression';
import { ArtifactInvalidError } from '../errors.js';
import { atom, child, children, head, isList } from './sexpr.js';

/** What `readKicadPcb` gives. */
export interface KicadBoardFacts {
  /** File format version, e.g. `20211014` (KiCad 6). */
  version: string;
  /** Copper layer names, e.g. `['F.Cu', 'B.Cu']`. */
  copperLayers: string[];
  footprints: { ref: string; pads: { number: string; net: string }[] }[];
  /** Edge.Cuts bounding box in mm, or `undefined` when the board has no outline. */
  outline: { minX: number; minY: number; maxX: number; maxY: number } | undefined;
  tracks: number;
  vias: number;
  /** Net classes defined in the board file itself (KiCad 5's place for them; KiCad 6 keeps them in the project). */
  netClasses: { name: string; rules: Record<string, number> }[];
}

/** KiCad's default net class rules, in mm: what DRC checks against when the board brings none. */
export const DEFAULT_NET_CLASS: Readonly<Record<string, number>> = {
  clearance: 0.2,
  trace_width: 0.25,
  via_dia: 0.8,
  via_drill: 0.4,
  uvia_dia: 0.3,
  uvia_drill: 0.1,
};

/** Parses board text. Throws `ArtifactInvalidError` for text that is not a KiCad board. */
export function readKicadPcb(text: string): KicadBoardFacts {
  if (!/^\s*\(kicad_pcb\b/.test(text))
    throw new ArtifactInvalidError('is not a KiCad board: it does not start with "(kicad_pcb"');
  const tree = parse(text);
  if (tree instanceof Error)
    throw new ArtifactInvalidError(`is not a valid S-expression (truncated or corrupt): ${tree.message}`);
  if (!isList(tree) || head(tree) !== 'kicad_pcb') throw new ArtifactInvalidError('is not a KiCad board');
  const version = atom(child(tree, 'version')?.[1]) ?? '?';
  const layers = child(tree, 'layers') ?? [];
  const copperLayers = layers
    .slice(1)
    .filter(isList)
    .map((l) => atom(l[1]) ?? '')
    .filter((n) => /\.Cu$/.test(n));
  const netNames = new Map(children(tree, 'net').map((n) => [atom(n[1]) ?? '', atom(n[2]) ?? '']));
  const footprints = [...children(tree, 'footprint'), ...children(tree, 'module')].map((fp) => {
    const ref =
      atom(children(fp, 'fp_text').find((t) => atom(t[1]) === 'reference')?.[2]) ??
      atom(children(fp, 'property').find((t) => atom(t[1]) === 'Reference')?.[2]) ??
      '?';
    const pads = children(fp, 'pad').map((p) => {
      const net = child(p, 'net');
      // KiCad 6 writes (net <code> "<name>"); later versions may write only the name.
      const name =
        net === undefined ? '' : (atom(net[2]) ?? netNames.get(atom(net[1]) ?? '') ?? atom(net[1]) ?? '');
      return { number: atom(p[1]) ?? '', net: name };
    });
    return { ref, pads };
  });
  const points: [number, number][] = [];
  for (const g of tree.filter(isList)) {
    const kind = head(g) ?? '';
    if (!/^gr_(line|rect|arc|circle|poly|curve)$/.test(kind) || atom(child(g, 'layer')?.[1]) !== 'Edge.Cuts')
      continue;
    const xy = (l: SExpr[] | undefined): void => {
      if (l !== undefined) points.push([Number(atom(l[1])), Number(atom(l[2]))]);
    };
    if (kind === 'gr_circle') {
      const c = child(g, 'center');
      const e = child(g, 'end');
      if (c !== undefined && e !== undefined) {
        const [cx, cy, ex, ey] = [c[1], c[2], e[1], e[2]].map((v) => Number(atom(v)));
        const r = Math.hypot(ex! - cx!, ey! - cy!);
        points.push([cx! - r, cy! - r], [cx! + r, cy! + r]);
      }
    } else {
      for (const k of ['start', 'mid', 'end']) xy(child(g, k));
      for (const p of children(child(g, 'pts') ?? [], 'xy')) xy(p);
    }
  }
  const finite = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const outline =
    finite.length === 0
      ? undefined
      : {
          minX: Math.min(...finite.map((p) => p[0])),
          minY: Math.min(...finite.map((p) => p[1])),
          maxX: Math.max(...finite.map((p) => p[0])),
          maxY: Math.max(...finite.map((p) => p[1])),
        };
  return {
    version,
    copperLayers,
    footprints,
    outline,
    tracks: children(tree, 'segment').length + children(tree, 'arc').length,
    vias: children(tree, 'via').length,
    netClasses: children(tree, 'net_class').map((nc) => ({
      name: atom(nc[1]) ?? '?',
      rules: Object.fromEntries(
        nc
          .filter(isList)
          .map((r) => [head(r) ?? '', Number(atom(r[1]))] as const)
          .filter(([k, v]) => k in DEFAULT_NET_CLASS && Number.isFinite(v)),
      ),
    })),
  };
}

/** The board text without its top-level `(net_class …)` blocks, so DRC uses KiCad's default rules. */
export function withoutNetClasses(text: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const at = text.indexOf('(net_class', i);
    if (at < 0) return out + text.slice(i);
    out += text.slice(i, at);
    let depth = 0;
    let j = at;
    let quoted = false;
    for (; j < text.length; j++) {
      const c = text[j];
      if (c === '"' && text[j - 1] !== '\\') quoted = !quoted;
      else if (!quoted && c === '(') depth++;
      else if (!quoted && c === ')' && --depth === 0) break;
    }
    i = j + 1;
  }
}

/** Nets as sets of pins (`R1.2`), from a board; pads without a net are left out. */
export function boardNets(b: KicadBoardFacts): string[][] {
  const nets = new Map<string, string[]>();
  for (const fp of b.footprints)
    for (const p of fp.pads) {
      if (p.net === '' || p.number === '') continue;
      nets.set(p.net, [...(nets.get(p.net) ?? []), `${fp.ref}.${p.number}`]);
    }
  return [...nets.values()];
}

/** Result of comparing two netlists. */
export interface NetlistMatch {
  precision: number;
  recall: number;
  f1: number;
  /** Expected pins whose net (as a set of pins) differs or is missing, first few. */
  missing: string[];
  /** Delivered pins not in the expected pairs, first few. */
  extra: string[];
}

/**
 * F1 over (pin ↔ net) pairs, each net named canonically by its sorted set of pins, so a net whose
 * pins match exactly counts whatever it is called. Single-pin nets are kept (an unconnected pin on
 * its own net is a pair like any other).
 */
export function compareNetlists(expected: string[][], delivered: string[][]): NetlistMatch {
  const pairs = (nets: string[][]): Set<string> => {
    const s = new Set<string>();
    for (const net of nets) {
      const key = [...new Set(net)].sort().join(',');
      for (const pin of new Set(net)) s.add(`${pin}↔{${key}}`);
    }
    return s;
  };
  const e = pairs(expected);
  const d = pairs(delivered);
  const hit = [...e].filter((x) => d.has(x)).length;
  const precision = d.size === 0 ? 0 : hit / d.size;
  const recall = e.size === 0 ? 1 : hit / e.size;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return {
    precision,
    recall,
    f1,
    missing: [...e].filter((x) => !d.has(x)).slice(0, 5),
    extra: [...d].filter((x) => !e.has(x)).slice(0, 5),
  };
}
