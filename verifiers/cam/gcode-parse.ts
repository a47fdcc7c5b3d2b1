/**
 * A small G-code interpreter for `gcode.check`: it follows the modal state (G0/G1/G2/G3 motion,
 * G90/G91 and M82/M83, G92, G20/G21, canned drilling cycles G81/G82/G83/G73 until G80, feed F,
 * tool T and M6, dwell G4) and turns the program into moves in machine millimetres. It also keeps
 * what the file says about itself (the slicer's header and layer markers, CNC comments naming a
 * tool or feed) apart, as claims for the checks to compare with the moves, never as evidence.
 * Words it does not know are ignored; non-text input or a file without motion throws
 * `ArtifactInvalidError`.
 */
import { ArtifactInvalidError } from '../errors.js';
import { deadline } from '../timeout.js';
import { readClaim, type GcodeClaims } from './gcode-claims-parse.js';

export type { GcodeClaims } from './gcode-claims-parse.js';

/** One straight move (arcs are split into chords). */
export interface Move {
  /** `rapid` (G0), `feed` (G1/G2/G3) or `drill` (a canned-cycle plunge). */
  kind: 'rapid' | 'feed' | 'drill';
  from: [number, number, number];
  to: [number, number, number];
  /** Filament advanced by this move (mm; negative for a retraction). */
  e: number;
  /** Feed rate in mm/min in force (0 when none was ever set). */
  f: number;
  /** Last `;TYPE:` comment seen (slicer feature), lower case; '' when none. A claim, not evidence. */
  type: string;
  /** Layer markers (`;LAYER:n`, `;LAYER_CHANGE`) seen before this move; 0 in the start G-code. */
  layer: number;
  /**
   * The tool in use: the one loaded by the last `M6` when the program uses M6 (CNC), else the last
   * `Tn` selected (FDM extruders, T0 until one is). -1 before any M6.
   */
  tool: number;
  /** 1-based source line. */
  line: number;
}

/** A non-motion command (M codes, G4, G28, G92…) with its first value per word. */
export interface Command {
  letter: 'M' | 'G';
  code: number;
  words: Record<string, number>;
  /** Letters given without a number (`M84 X Y E`). */
  flags: string[];
  line: number;
  /** How many moves come before it. */
  atMove: number;
}

/** What the interpreter found. */
export interface GcodeProgram {
  moves: Move[];
  /** Tool changes in order: `M6` loads when the program uses M6, else `Tn` selections. */
  toolChanges: { tool: number; line: number }[];
  /** Canned-cycle holes: XY position, bottom Z, tool, line. */
  holes: { x: number; y: number; z: number; tool: number; line: number }[];
  /** Non-motion commands in order (M codes, dwells, homing). */
  commands: Command[];
  /** Layer markers in order, with the `;Z:` height PrusaSlicer writes after each. */
  layerMarkers: { line: number; atMove: number; z?: number }[];
  /** What the file says about itself: slicer header, CNC comments. */
  claims: GcodeClaims;
  lines: number;
  /** Size of the text in bytes (latin1: one byte a character). */
  bytes: number;
  /** Whether the text ends with a line break (a slicer always writes one). */
  finalNewline: boolean;
  /** The last non-blank line and its number. */
  lastLine: { line: number; text: string };
  /** Words that could not be read (first few), e.g. `Y{machine_depth}`. */
  unreadable: string[];
}

const WORD = /([A-Z])\s*([-+]?(?:\d+\.?\d*|\.\d+))/g;
const FLAG = /(?:^|\s)([A-Z])(?=\s|$)/g;

/** Runs the interpreter over a G-code text. */
export function parseGcode(text: string, limitMs: number): GcodeProgram {
  if (text.includes('\u0000')) throw new ArtifactInvalidError('binary content: not a text G-code file');
  const clock = deadline(limitMs, 'G-code parse');
  const lines = text.split(/\r?\n/);
  const pos: [number, number, number] = [0, 0, 0];
  let e = 0;
  let absXYZ = true;
  let absE = true;
  let scale = 1;
  let motion = -1;
  let cycle = 0;
  let retractMode = 98;
  let cycleR: number | undefined;
  let cycleZ: number | undefined;
  let f = 0;
  let type = '';
  let layer = 0;
  let pendingTool: number | null = null;
  let loaded = -1;
  let selected = 0;
  const m6: { tool: number; line: number }[] = [];
  const selects: { tool: number; line: number }[] = [];
  const loadedAt: number[] = [];
  const selectedAt: number[] = [];
  const holeAt: { loaded: number; selected: number }[] = [];
  let last = { line: 0, text: '' };
  const out: GcodeProgram = {
    moves: [],
    toolChanges: [],
    holes: [],
    commands: [],
    layerMarkers: [],
    claims: { tools: [], feeds: [] },
    lines: lines.length,
    bytes: text.length,
    finalNewline: text.endsWith('\n'),
    lastLine: last,
    unreadable: [],
  };
  let lineNo = 0;
  const at = (kind: Move['kind'], from: Move['from'], to: Move['to'], de = 0): void => {
    out.moves.push({ kind, from, to, e: de, f, type, layer, tool: -1, line: lineNo });
    loadedAt.push(loaded);
    selectedAt.push(selected);
  };
  let codes = 0;
  for (let n = 0; n < lines.length; n++) {
    if ((n & 4095) === 0) clock.check();
    const raw = lines[n]!;
    lineNo = n + 1;
    if (raw.trim() !== '') last = { line: n + 1, text: raw.trim() };
    const semi = raw.indexOf(';');
    const comment = semi >= 0 ? raw.slice(semi + 1).trim() : '';
    const codePart = semi >= 0 ? raw.slice(0, semi) : raw;
    const paren = codePart.includes('(')
      ? [...codePart.matchAll(/\(([^)]*)(?:\)|$)/g)].map((m) => m[1]!.trim())
      : [];
    for (const c of paren.length === 0 ? [comment] : [comment, ...paren])
      if (c !== '') {
        const said = readClaim(c, n + 1, out.claims);
        if (said.type !== undefined) type = said.type;
        if (said.layer) {
          layer++;
          out.layerMarkers.push({ line: n + 1, atMove: out.moves.length });
        }
        if (said.z !== undefined && out.layerMarkers.length > 0) out.layerMarkers.at(-1)!.z ??= said.z;
      }
    // RS-274 comments are (…); an unclosed "(" runs to the end of the line
    const code = (paren.length === 0 ? codePart : codePart.replace(/\([^)]*(\)|$)/g, ''))
      .toUpperCase()
      .trim();
    if (code === '' || code.startsWith('%')) continue;
    codes++;
    const words: Record<string, number[]> = {};
    for (const m of code.matchAll(WORD)) (words[m[1]!] ??= []).push(Number(m[2]));
    const g = words['G'] ?? [];
    const rest = code
      .replace(WORD, '')
      .replace(/\*\d+$/, '')
      .trim();
    if (rest !== '' && g.some((c) => c <= 3) && out.unreadable.length < 5)
      out.unreadable.push(`line ${n + 1}: ${rest.slice(0, 30)}`);
    const mcodes = words['M'] ?? [];
    const has = (k: string): boolean => words[k] !== undefined;
    const val = (k: string): number | undefined => words[k]?.[0];
    const other = g.filter((c) => c > 3 || !Number.isInteger(c));
    if (mcodes.length > 0 || other.length > 0) {
      const first: Record<string, number> = {};
      for (const [k, v] of Object.entries(words)) first[k] = v[0]!;
      const flags = rest === '' ? [] : [...rest.matchAll(FLAG)].map((m) => m[1]!);
      const cmd = { words: first, flags, line: n + 1, atMove: out.moves.length };
      for (const c of mcodes) out.commands.push({ letter: 'M', code: c, ...cmd });
      for (const c of other) out.commands.push({ letter: 'G', code: c, ...cmd });
    }
    for (const c of g) {
      if (c === 90) [absXYZ, absE] = [true, true];
      else if (c === 91) [absXYZ, absE] = [false, false];
      else if (c === 20) scale = 25.4;
      else if (c === 21) scale = 1;
      else if (c === 98 || c === 99) retractMode = c;
      else if (c === 80) [cycle, cycleR, cycleZ] = [0, undefined, undefined];
      else if ([73, 81, 82, 83, 85].includes(c)) [cycle, motion] = [c, -1];
      else if (c >= 0 && c <= 3 && Number.isInteger(c)) [motion, cycle] = [c, 0];
    }
    for (const c of mcodes) {
      if (c === 82) absE = true;
      else if (c === 83) absE = false;
      else if (c === 6) {
        const t = val('T') ?? pendingTool ?? -1;
        m6.push({ tool: t, line: n + 1 });
        loaded = t;
        pendingTool = null;
      }
    }
    if (has('T') && !mcodes.includes(6)) {
      pendingTool = val('T')!;
      // a T word alone selects an extruder at once (FDM); on a mill it only prepares the next M6
      if (mcodes.length === 0 && g.length === 0) {
        selected = pendingTool;
        selects.push({ tool: selected, line: n + 1 });
      }
    }
    // an M code's words are its arguments (M201 E5000, M203 X200), not a move
    if (mcodes.length > 0 && g.length === 0) continue;
    if (has('F')) f = val('F')! * scale;
    if (g.includes(92)) {
      // G92 sets positions without motion
      (['X', 'Y', 'Z'] as const).forEach((k, i) => has(k) && (pos[i] = val(k)! * scale));
      if (has('E')) e = val('E')!;
      continue;
    }
    if (g.includes(28) || g.includes(4) || g.includes(10)) continue;
    const target: [number, number, number] = [pos[0], pos[1], pos[2]];
    (['X', 'Y', 'Z'] as const).forEach((k, i) => {
      if (has(k)) target[i] = absXYZ ? val(k)! * scale : pos[i]! + val(k)! * scale;
    });
    const moved = has('X') || has('Y') || has('Z');
    let de = 0;
    if (has('E')) {
      de = absE ? val('E')! - e : val('E')!;
      e = absE ? val('E')! : e + de;
    }
    if (cycle !== 0 && moved) {
      // Z (bottom) and R (retract plane) stay in force for the following holes of the cycle
      if (has('R')) cycleR = val('R')! * scale;
      if (has('Z')) cycleZ = absXYZ ? val('Z')! * scale : pos[2] + val('Z')! * scale;
      const r = cycleR ?? pos[2];
      const bottom = cycleZ ?? pos[2];
      const clear = retractMode === 98 ? Math.max(pos[2], r) : r;
      const high: [number, number, number] = [target[0], target[1], Math.max(pos[2], clear)];
      at('rapid', [...pos], high);
      at('rapid', [...high], [target[0], target[1], r]);
      at('drill', [target[0], target[1], r], [target[0], target[1], bottom]);
      out.holes.push({ x: target[0], y: target[1], z: bottom, tool: -1, line: n + 1 });
      holeAt.push({ loaded, selected });
      [pos[0], pos[1], pos[2]] = [target[0], target[1], clear];
      continue;
    }
    if (!moved && de === 0) continue;
    if (motion === 2 || motion === 3) {
      for (const [a, b, d] of arc(pos, target, motion === 2, words, scale, de)) at('feed', a, b, d);
    } else at(motion === 0 ? 'rapid' : 'feed', [...pos], target, de);
    [pos[0], pos[1], pos[2]] = target;
  }
  if (codes === 0) throw new ArtifactInvalidError('no G-code commands (only comments or blank lines)');
  if (out.moves.length === 0) throw new ArtifactInvalidError(`no motion commands in ${codes} G-code lines`);
  // A program that loads tools with M6 is a mill: its tool is the loaded one; else an FDM printer's
  // extruder selected by a bare Tn (T0 until one is).
  const byM6 = m6.length > 0;
  out.moves.forEach((m, i) => (m.tool = byM6 ? loadedAt[i]! : selectedAt[i]!));
  out.holes.forEach((h, i) => (h.tool = byM6 ? holeAt[i]!.loaded : holeAt[i]!.selected));
  out.toolChanges = byM6 ? m6 : selects;
  out.lastLine = last;
  return out;
}

/** Chords of a G2/G3 arc in the XY plane (I/J centre offsets or R radius), ≤ 5° each. */
function arc(
  from: [number, number, number],
  to: [number, number, number],
  cw: boolean,
  words: Record<string, number[]>,
  scale: number,
  de: number,
): [[number, number, number], [number, number, number], number][] {
  let cx: number;
  let cy: number;
  if (words['I'] !== undefined || words['J'] !== undefined) {
    cx = from[0] + (words['I']?.[0] ?? 0) * scale;
    cy = from[1] + (words['J']?.[0] ?? 0) * scale;
  } else if (words['R'] !== undefined) {
    const r = words['R'][0]! * scale;
    const [dx, dy] = [to[0] - from[0], to[1] - from[1]];
    const d = Math.hypot(dx, dy);
    if (d === 0 || Math.abs(r) < d / 2) return [[[...from], [...to], de]];
    // the centre lies left of the chord for a counter-clockwise short arc (R > 0), right for a clockwise one
    const h = Math.sqrt(r * r - (d * d) / 4) * ((cw ? -1 : 1) * (r > 0 ? 1 : -1));
    cx = from[0] + dx / 2 - (h * dy) / d;
    cy = from[1] + dy / 2 + (h * dx) / d;
  } else return [[[...from], [...to], de]];
  const r = Math.hypot(from[0] - cx, from[1] - cy);
  const a0 = Math.atan2(from[1] - cy, from[0] - cx);
  let a1 = Math.atan2(to[1] - cy, to[0] - cx);
  if (cw) while (a1 >= a0) a1 -= 2 * Math.PI;
  else while (a1 <= a0) a1 += 2 * Math.PI;
  const sweep = a1 - a0;
  const k = Math.max(1, Math.ceil(Math.abs(sweep) / (Math.PI / 36)));
  const pts: [number, number, number][] = [];
  for (let i = 0; i <= k; i++) {
    const a = a0 + (sweep * i) / k;
    pts.push(
      i === k ? [...to] : [cx + r * Math.cos(a), cy + r * Math.sin(a), from[2] + ((to[2] - from[2]) * i) / k],
    );
  }
  return pts.slice(1).map((p, i) => [pts[i]!, p, de / k]);
}
