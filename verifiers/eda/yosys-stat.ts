/**
 * Cell statistics for `yosys.equivalence`: reading yosys's `stat -json` of the verifier's own
 * synthesis, and reading a statistics report an agent delivered — `stat` text, `stat -json`, or a
 * `write_json` netlist — so it can be compared with the re-synthesis, never taken as the evidence.
 */

/** Cells of a synthesised design. */
export interface CellStats {
  cells: number;
  byType: Record<string, number>;
}

/** Flip-flops among the cells (`$_DFF_P_`, `$_SDFFE_PP0N_`, `$dff`, `$adffe`, …). */
export const flipFlops = (s: CellStats): number =>
  Object.entries(s.byType)
    .filter(([t]) => /dff/i.test(t))
    .reduce((n, [, c]) => n + c, 0);

type Json = Record<string, unknown>;
const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The module of `top` in a yosys JSON `modules` map (keys may carry yosys's `\` prefix). */
function topModule(modules: Json, top: string): Json | undefined {
  const m = modules[top] ?? modules[`\\${top}`];
  if (isObj(m)) return m;
  const all = Object.values(modules).filter(isObj);
  return all.length === 1 ? all[0] : undefined;
}

function statOf(entry: Json): CellStats | undefined {
  if (typeof entry.num_cells !== 'number') return undefined;
  const byType: Record<string, number> = {};
  if (isObj(entry.num_cells_by_type))
    for (const [t, n] of Object.entries(entry.num_cells_by_type)) if (typeof n === 'number') byType[t] = n;
  return { cells: entry.num_cells, byType };
}

/**
 * Reads `stat -json` output: the `design` totals (the whole hierarchy), else the top module.
 * Undefined when the text is not such a report.
 */
export function readStatJson(text: string, top: string): CellStats | undefined {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(j)) return undefined;
  if (isObj(j.design)) {
    const d = statOf(j.design);
    if (d !== undefined) return d;
  }
  const m = isObj(j.modules) ? topModule(j.modules, top) : undefined;
  return m === undefined ? undefined : statOf(m);
}

/** What a delivered report says, and what kind of report it is. */
export type ReportReading =
  | { ok: true; kind: 'stat text' | 'stat -json' | 'write_json netlist'; stats: CellStats }
  | { ok: false; reason: string };

/**
 * Reads a delivered synthesis report: yosys `stat` text (its last `Number of cells:` block),
 * `stat -json`, or a `write_json` netlist (whose top module's cells are counted by type).
 */
export function readReport(text: string, top: string): ReportReading {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    let j: unknown;
    try {
      j = JSON.parse(trimmed);
    } catch (err) {
      return { ok: false, reason: `is not valid JSON (${err instanceof Error ? err.message : String(err)})` };
    }
    if (!isObj(j) || !isObj(j.modules)) return { ok: false, reason: 'is JSON without yosys "modules"' };
    const stat = readStatJson(trimmed, top);
    if (stat !== undefined) return { ok: true, kind: 'stat -json', stats: stat };
    const m = topModule(j.modules, top);
    if (m === undefined || !isObj(m.cells)) return { ok: false, reason: `has no module ${top} with cells` };
    const byType: Record<string, number> = {};
    for (const c of Object.values(m.cells))
      if (isObj(c) && typeof c.type === 'string') byType[c.type] = (byType[c.type] ?? 0) + 1;
    return {
      ok: true,
      kind: 'write_json netlist',
      stats: { cells: Object.values(byType).reduce((a, b) => a + b, 0), byType },
    };
  }
  const lines = text.replace(/\r/g, '').split('\n');
  const at = lines.map((l) => /^\s*Number of cells:\s*(\d+)\s*$/.exec(l)).findLastIndex((m) => m !== null);
  if (at < 0) return { ok: false, reason: 'is not a yosys statistics report (no "Number of cells:" line)' };
  const byType: Record<string, number> = {};
  for (const l of lines.slice(at + 1)) {
    const m = /^\s+(\S+)\s+(\d+)\s*$/.exec(l);
    if (m === null) break;
    byType[m[1]!] = Number(m[2]);
  }
  return { ok: true, kind: 'stat text', stats: { cells: Number(/(\d+)/.exec(lines[at]!)![1]), byType } };
}

/** The differences between a report's counts and the re-synthesis's: `$_XOR_ 7 vs 12`, first few. */
export function statDifferences(claimed: CellStats, actual: CellStats): string[] {
  const out: string[] = [];
  if (claimed.cells !== actual.cells) out.push(`cells ${claimed.cells} vs ${actual.cells}`);
  const types = [...new Set([...Object.keys(claimed.byType), ...Object.keys(actual.byType)])].sort();
  for (const t of types) {
    const [a, b] = [claimed.byType[t] ?? 0, actual.byType[t] ?? 0];
    if (a !== b) out.push(`${t} ${a} vs ${b}`);
  }
  return out;
}

/** `{ $_AND_: 3, $_XOR_: 2 }` → `$_AND_ 3, $_XOR_ 2`. */
export const typeList = (byType: Record<string, number>): string =>
  Object.entries(byType)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
