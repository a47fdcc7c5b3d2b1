/**
 * A small G-code interpreter for `gcode.check`: it follows the modal state (G0/G1/G2/G3 motion,
 * G90/G91 and M82/M83, G92, G20/G21, canned drilling cycles G81/G82/G83/G73 until G80, feed F,
 * tool T + M6) and turns the program into moves in machine millimetres. It reads the slicer
 * comments it needs (`;TYPE:`, `;LAYER:` / `;LAYER_CHANGE`, filament used and estimated time) and
 * ignores words it does not know; unbalanced or non-text input throws `ArtifactInvalidError`.
 */
import { ArtifactInvalidError } from '../errors.js';
import { deadline } from '../timeout.js';

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
  /** Last `;TYPE:` comment seen (slicer feature), lower case; '' when none. */
  type: string;
  /** Whether a layer marker (`;LAYER:n` or `;LAYER_CHANGE`) was seen before this move. */
  inLayers: boolean;
  /** 1-based source line. */
  line: number;
}

/** What the interpreter found. */
export interface GcodeProgram {
  moves: Move[];
  /** Tool changes in order: tool number and line. */
  toolChanges: { tool: number; line: number }[];
  /** Canned-cycle holes: XY position, bottom Z, line. */
  holes: { x: number; y: number; z: number; line: number }[];
  /** Slicer comments: filament used (mm) and estimated time (s), when present. */
  header: { filamentMm?: number; filamentCm3?: number; timeSec?: number; slicer?: string };
  lines: number;
  /** Words that could not be read (first few), e.g. `Y{machine_depth}`. */
  unreadable: string[];
}

const WORD = /([A-Z])\s*([-+]?(?:\d+\.?\d*|\.\d+))/g;

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
  let inLayers = false;
  let pendingTool: number | null = null;
  const out: GcodeProgram = {
    moves: [],
    toolChanges: [],
    holes: [],
    header: {},
    lines: lines.length,
    unreadable: [],
  };
  let codes = 0;
  for (let n = 0; n < lines.length; n++) {
    if ((n & 4095) === 0) clock.check();
    const raw = lines[n]!;
    const semi = raw.indexOf(';');
    const comment = semi >= 0 ? raw.slice(semi + 1).trim() : '';
    if (comment !== '')
      readComment(
        comment,
        out.header,
        (t) => (type = t),
        () => (inLayers = true),
      );
    // RS-274 comments are (…); an unclosed "(" runs to the end of the line
    const code = (semi >= 0 ? raw.slice(0, semi) : raw)
      .replace(/\([^)]*(\)|$)/g, '')
      .toUpperCase()
      .trim();
    if (code === '' || code.startsWith('%')) continue;
    codes++;
    const words: Record<string, number[]> = {};
    for (const m of code.matchAll(WORD)) (words[m[1]!] ??= []).push(Number(m[2]));
    const g = words['G'] ?? [];
    const bad = code
      .replace(WORD, '')
      .replace(/\*\d+$/, '')
      .trim();
    if (bad !== '' && g.some((c) => c <= 3) && out.unreadable.length < 5)
      out.unreadable.push(`line ${n + 1}: ${bad.slice(0, 30)}`);
    const mcodes = words['M'] ?? [];
    const has = (k: string): boolean => words[k] !== undefined;
    const val = (k: string): number | undefined => words[k]?.[0];
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
        const t = val('T') ?? pendingTool;
        out.toolChanges.push({ tool: t ?? -1, line: n + 1 });
        pendingTool = null;
      }
    }
    if (has('T') && !mcodes.includes(6)) pendingTool = val('T')!;
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
      const top: [number, number, number] = [target[0], target[1], clear];
      out.moves.push(
        mv('rapid', [...pos], [target[0], target[1], Math.max(pos[2], clear)], 0, f, type, inLayers, n),
      );
      out.moves.push(
        mv(
          'rapid',
          [target[0], target[1], Math.max(pos[2], clear)],
          [target[0], target[1], r],
          0,
          f,
          type,
          inLayers,
          n,
        ),
      );
      out.moves.push(
        mv('drill', [target[0], target[1], r], [target[0], target[1], bottom], 0, f, type, inLayers, n),
      );
      out.holes.push({ x: target[0], y: target[1], z: bottom, line: n + 1 });
      [pos[0], pos[1], pos[2]] = top;
      continue;
    }
    if (!moved && de === 0) continue;
    if (motion === 2 || motion === 3) {
      arc(pos, target, motion === 2, words, scale, de).forEach(([a, b, d]) =>
        out.moves.push(mv('feed', a, b, d, f, type, inLayers, n)),
      );
    } else out.moves.push(mv(motion === 0 ? 'rapid' : 'feed', [...pos], target, de, f, type, inLayers, n));
    [pos[0], pos[1], pos[2]] = target;
  }
  if (codes === 0) throw new ArtifactInvalidError('no G-code commands (only comments or blank lines)');
  if (out.moves.length === 0) throw new ArtifactInvalidError(`no motion commands in ${codes} G-code lines`);
  return out;
}

function mv(
  kind: Move['kind'],
  from: [number, number, number],
  to: [number, number, number],
  e: number,
  f: number,
  type: string,
  inLayers: boolean,
  n: number,
): Move {
  return { kind, from, to, e, f, type, inLayers, line: n + 1 };
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
    const h = Math.sqrt(r * r - (d * d) / 4) * ((cw ? 1 : -1) * (r > 0 ? 1 : -1));
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

function readComment(
  c: string,
  h: GcodeProgram['header'],
  setType: (t: string) => void,
  layer: () => void,
): void {
  let m: RegExpExecArray | null;
  if ((m = /^TYPE:\s*(.*)$/i.exec(c))) setType(m[1]!.trim().toLowerCase());
  else if (/^LAYER(:\s*-?\d+|_CHANGE)\b/i.test(c)) layer();
  else if ((m = /^filament used \[mm\]\s*=\s*([\d.]+)/i.exec(c))) h.filamentMm = Number(m[1]);
  else if ((m = /^filament used \[cm3\]\s*=\s*([\d.]+)/i.exec(c))) h.filamentCm3 = Number(m[1]);
  else if ((m = /^Filament used:\s*([\d.]+)m\b/i.exec(c))) h.filamentMm = Number(m[1]) * 1000;
  else if ((m = /^estimated printing time \(normal mode\)\s*=\s*(.*)$/i.exec(c))) h.timeSec = duration(m[1]!);
  else if ((m = /^TIME:\s*(\d+)/.exec(c))) h.timeSec = Number(m[1]);
  else if ((m = /generated (?:by|with) (\S+)/i.exec(c))) h.slicer = m[1]!;
  else if ((m = /^FLAVOR:/.exec(c))) h.slicer ??= 'Cura';
}

/** `1d 2h 29m 51s` → seconds. */
function duration(s: string): number {
  let t = 0;
  for (const m of s.matchAll(/(\d+)\s*([dhms])/g))
    t += Number(m[1]) * { d: 86400, h: 3600, m: 60, s: 1 }[m[2] as 'd']!;
  return t;
}
