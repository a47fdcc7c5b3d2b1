/**
 * Content sniffing: does a file look like the format it claims, and is it whole? Light checks only
 * (magic numbers, framing, terminators, counts); the app-based verifiers reopen the file for real.
 * `detectFormat` uses the same sniffers, so a hand-off record and `file.format` agree on a name.
 */
import { gunzipSync, constants as zlibConstants } from 'node:zlib';
import { sniffStl } from './cad/stl-parse.js';
import { canonicalFormat, FORMAT_LABELS, type FormatName } from './formats.js';
import { blendContainer, isGlb, isJpeg, isPng } from './magic.js';

/** Result of a sniff: `ok` (of that format and whole), and what was seen. */
export interface SniffResult {
  ok: boolean;
  /** What the content looks like, e.g. `binary STL, 1052 triangles`, `truncated STEP: …`. */
  seen: string;
}

/** A sniffer: null when the bytes are not this format at all; else whether they are whole. */
type Sniffer = (b: Buffer) => SniffResult | null;

/** The whole buffer as text is made once per buffer, however many sniffers read it. */
const whole = new WeakMap<Buffer, string>();
function text(b: Buffer, n?: number): string {
  if (n !== undefined && n < b.length) return b.subarray(0, n).toString('latin1');
  let s = whole.get(b);
  if (s === undefined) whole.set(b, (s = b.toString('latin1')));
  return s;
}
const yes = (seen: string): SniffResult => ({ ok: true, seen });
const broken = (seen: string): SniffResult => ({ ok: false, seen });
const count = (s: string, re: RegExp) => (s.match(re) ?? []).length;

/** `(kicad_pcb …)`-style files: the head tag, and parentheses balanced outside strings. */
function sexpr(tag: string, what: string): Sniffer {
  return (b) => {
    if (!new RegExp(`^\\s*\\(${tag}[\\s)]`).test(text(b, 256))) return null;
    let depth = 0;
    let inStr = false;
    const s = text(b);
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (inStr) {
        if (c === '\\') i++;
        else if (c === '"') inStr = false;
      } else if (c === '"') inStr = true;
      else if (c === '(') depth++;
      else if (c === ')') depth--;
    }
    return depth === 0
      ? yes(`${what} (s-expression, balanced)`)
      : broken(`truncated ${what}: ${depth} unclosed parenthesis(es) at the end`);
  };
}

/** ISO 10303-21 (STEP and IFC): the framing sections and the terminator. */
function iso(ifc: boolean): Sniffer {
  return (b) => {
    if (!/^\uFEFF?\s*ISO-10303-21\s*;/.test(text(b, 256))) return null;
    const s = text(b).replace(/^\uFEFF/, '');
    const schema = /FILE_SCHEMA\s*\(\s*\(\s*'([^']*)'/i.exec(s)?.[1] ?? '';
    if (/^IFC/i.test(schema) !== ifc) return null;
    const name = ifc ? 'IFC' : 'STEP';
    const entities = count(s, /^\s*#\d+\s*=/gm);
    const missing = [
      /\bHEADER\s*;/.test(s) ? '' : 'HEADER;',
      /\bDATA\s*;/.test(s) ? '' : 'DATA;',
      count(s, /\bENDSEC\s*;/g) >= 2 ? '' : 'ENDSEC;',
      /END-ISO-10303-21\s*;\s*$/.test(s) ? '' : 'END-ISO-10303-21;',
    ].filter(Boolean);
    const desc = `${name}${schema ? ` (${schema})` : ''}, ${entities} entities`;
    return missing.length === 0
      ? yes(desc)
      : broken(`truncated or unterminated ${desc}: no ${missing.join(', ')}`);
  };
}

const SNIFFERS: Record<FormatName, Sniffer> = {
  png: (b) =>
    isPng(b)
      ? b.includes('IEND', Math.max(0, b.length - 16), 'latin1')
        ? yes(`PNG ${b.length > 24 ? `${b.readUInt32BE(16)}×${b.readUInt32BE(20)}` : ''}`.trim())
        : broken('truncated PNG: no IEND chunk at the end')
      : null,
  jpeg: (b) =>
    isJpeg(b)
      ? b.at(-2) === 0xff && b.at(-1) === 0xd9
        ? yes('JPEG')
        : broken('truncated JPEG: no end-of-image marker')
      : null,
  glb: (b) => {
    if (!isGlb(b)) return null;
    const version = b.readUInt32LE(4);
    const declared = b.readUInt32LE(8);
    if (version !== 2) return broken(`GLB version ${version} (glTF 2.0 binaries are version 2)`);
    if (declared !== b.length)
      return broken(
        `GLB header declares ${declared} bytes but the file has ${b.length}${declared > b.length ? ': truncated' : ''}`,
      );
    const jsonLen = b.length >= 20 ? b.readUInt32LE(12) : 0;
    if (b.length < 20 || b.readUInt32LE(16) !== 0x4e4f534a || 20 + jsonLen > b.length)
      return broken('GLB without a whole JSON chunk first');
    return yes(`GLB (glTF 2.0 binary), ${b.length} bytes, JSON chunk ${jsonLen} bytes`);
  },
  blend: (b) => {
    const container = blendContainer(b);
    const h = text(b, 12);
    if (container === 'plain')
      return /^BLENDER[-_][vV]\d{3}/.test(h)
        ? yes(`Blender file v${h.slice(9, 12)} (${h[7] === '-' ? '64' : '32'}-bit)`)
        : null;
    if (container === 'gzip') {
      try {
        const inner = gunzipSync(b.subarray(0, 4096), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
        return /^BLENDER[-_][vV]\d{3}/.test(text(inner, 12)) ? yes('gzip-compressed Blender file') : null;
      } catch {
        return null;
      }
    }
    // Blender 3 compresses with zstd; Node 20 cannot inflate it, so only the frame is recognised.
    if (container === 'zstd')
      return yes('zstd-compressed data (a compressed .blend; blend.scene opens it in Blender)');
    return null;
  },
  fcstd: (b) =>
    text(b, 4) === 'PK\x03\x04' && b.includes('Document.xml', 0, 'latin1')
      ? zipEnd(b)
        ? yes('FreeCAD document (zip with Document.xml)')
        : broken('truncated FreeCAD document: the zip has no end-of-directory record')
      : null,
  zip: (b) =>
    text(b, 4) === 'PK\x03\x04' || text(b, 4) === 'PK\x05\x06'
      ? zipEnd(b)
        ? yes('zip archive')
        : broken('truncated zip: no end-of-directory record')
      : null,
  step: iso(false),
  ifc: iso(true),
  stl: (b) => {
    const s = sniffStl(b);
    if (s.kind === 'binary')
      return s.triangles > 0
        ? yes(`binary STL, ${s.triangles} triangles (size 84 + 50·${s.triangles} bytes)`)
        : broken('binary STL with 0 triangles');
    if (s.kind === 'ascii') return yes('ASCII STL (solid … facet)');
    return /^\s*solid\b/i.test(text(b, 256)) || /truncated|cut short/i.test(s.reason)
      ? broken(s.reason)
      : null;
  },
  kicad_pcb: sexpr('kicad_pcb', 'KiCad board'),
  kicad_sch: sexpr('kicad_sch', 'KiCad schematic'),
  kicad_net: sexpr('export', 'KiCad netlist'),
  msh: (b) => {
    if (!/^\s*\$MeshFormat/.test(text(b, 256))) return null;
    const s = text(b);
    const nodes = /\$Nodes[\s\S]*\$EndNodes/.test(s);
    const elements = /\$Elements[\s\S]*\$EndElements/.test(s);
    return nodes && elements
      ? yes('gmsh mesh ($Nodes, $Elements)')
      : broken(`truncated gmsh mesh: no complete ${nodes ? '$Elements' : '$Nodes'} section`);
  },
  dxf: (b) => {
    if (text(b, 22) === 'AutoCAD Binary DXF\r\n\x1a\x00') return yes('binary DXF');
    if (!/^\s*0\s*\r?\n\s*SECTION\b/.test(text(b, 256))) return null;
    const s = text(b);
    const sections = [...s.matchAll(/^\s*0\s*\r?\n\s*SECTION\s*\r?\n\s*2\s*\r?\n\s*([A-Z]+)/gm)].map(
      (m) => m[1],
    );
    return /^\s*0\s*\r?\n\s*EOF\s*$/m.test(s.slice(-64))
      ? yes(`ASCII DXF, sections ${sections.slice(0, 6).join(', ') || 'none'}`)
      : broken('truncated DXF: no "0 / EOF" at the end');
  },
  gltf: (b) => {
    const j = jsonOf(b);
    const asset = (j as { asset?: { version?: unknown } } | undefined)?.asset;
    return typeof asset?.version === 'string' ? yes(`glTF ${asset.version} JSON`) : null;
  },
  json: (b) =>
    jsonOf(b) !== undefined
      ? yes('JSON')
      : /^\s*[[{]/.test(text(b, 64))
        ? broken('not valid JSON (truncated or malformed)')
        : null,
  inp: (b) => {
    if (!/^\s*\*\s*(HEADING|NODE|ELEMENT|INCLUDE|MATERIAL)\b/im.test(text(b, 8192))) return null;
    const s = text(b);
    return yes(
      `Abaqus/CalculiX input deck: ${count(s, /^\s*\*NODE\b/gim)} *NODE, ${count(s, /^\s*\*ELEMENT\b/gim)} *ELEMENT, ${count(s, /^\s*\*STEP\b/gim)} *STEP`,
    );
  },
  frd: (b) => {
    if (!/^\s*1C/m.test(text(b, 4096))) return null;
    const s = text(b);
    if (!/^\s*2C/m.test(s)) return null;
    return /^\s*9999\s*$/m.test(s.slice(-64))
      ? yes('CalculiX .frd results')
      : broken('truncated .frd: no closing 9999');
  },
  verilog: (b) => {
    if (!b.includes('module')) return null;
    const code = text(b)
      .replace(/\/\*[\s\S]*?\*\//g, ' ')
      .replace(/\/\/[^\n]*/g, ' ');
    const modules = [...code.matchAll(/\bmodule\s+([A-Za-z_][A-Za-z0-9_$]*)[\s\S]*?\bendmodule\b/g)].map(
      (m) => m[1],
    );
    if (modules.length > 0) return yes(`Verilog, module(s): ${modules.join(', ')}`);
    return /\bmodule\b/.test(code) ? broken('truncated Verilog: "module" without "endmodule"') : null;
  },
  spice: (b) => sniffSpice(text(b)),
  gcode: (b) => {
    const lines = text(b)
      .split(/\r?\n/)
      .map((l) => l.replace(/;.*$/, '').trim())
      .filter((l) => l !== '');
    const codes = lines.filter((l) => /^(N\d+\s+)?[GMT]\d+/i.test(l)).length;
    const moves = lines.filter((l) => /^(N\d+\s+)?G0?[0-3](?!\d)/i.test(l)).length;
    if (moves === 0 || codes < lines.length / 2) return null;
    return yes(`G-code, ${lines.length} command lines, ${moves} moves`);
  },
};

/** Formats that are text: bytes with a NUL in their first 4 KiB are none of these. */
const TEXT_ONLY = new Set<FormatName>([
  'step',
  'ifc',
  'kicad_pcb',
  'kicad_sch',
  'kicad_net',
  'msh',
  'gltf',
  'json',
  'inp',
  'frd',
  'verilog',
  'spice',
  'gcode',
]);

/** Detection order: binary magics first, then the framed text formats, then the loose ones. */
const DETECT_ORDER: FormatName[] = [
  'png',
  'jpeg',
  'glb',
  'blend',
  'fcstd',
  'zip',
  'step',
  'ifc',
  'stl',
  'kicad_pcb',
  'kicad_sch',
  'kicad_net',
  'msh',
  'dxf',
  'gltf',
  'json',
  'inp',
  'frd',
  'verilog',
  'spice',
  'gcode',
];

/** Sniffs non-empty bytes as `format` (a declared format or extension). */
export function sniff(format: string, bytes: Buffer): SniffResult {
  const f = canonicalFormat(format) as FormatName;
  const sniffer = SNIFFERS[f] as Sniffer | undefined;
  if (sniffer === undefined)
    return { ok: bytes.length > 0, seen: `${bytes.length} bytes (no content check for this format)` };
  const r = sniffer(bytes);
  if (r !== null) return r;
  const actually = detectFormat(bytes) as keyof typeof FORMAT_LABELS;
  const why = f === 'spice' ? sniffSpiceWhy(text(bytes)) : f === 'verilog' ? 'no "module … endmodule"' : '';
  return {
    ok: false,
    seen: `not ${FORMAT_LABELS[f]}${why ? ` (${why})` : ''}: the content looks like ${FORMAT_LABELS[actually] ?? actually}`,
  };
}

/**
 * The format of an artifact by its content: a canonical name (`formats.ts`), `text` for other
 * printable text (a script, a log), or `unknown`.
 */
export function detectFormat(b: Buffer): string {
  const binary = b.subarray(0, 4096).includes(0);
  for (const f of DETECT_ORDER) if (!(binary && TEXT_ONLY.has(f)) && SNIFFERS[f](b) !== null) return f;
  return b.length > 0 && /^[\x09\x0a\x0d\x20-\x7e\x80-\xff]*$/.test(text(b, 4096)) ? 'text' : 'unknown';
}

function zipEnd(b: Buffer): boolean {
  return b.includes('PK\x05\x06', Math.max(0, b.length - 65_557), 'latin1');
}

function jsonOf(b: Buffer): unknown {
  if (!/^\s*[[{]/.test(text(b, 64))) return undefined;
  try {
    return JSON.parse(b.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Element lines: a letter naming a device, a name, then at least two nodes. */
const ELEMENT = /^[rclvikedfghxbjmqsotwuyz]\S*\s+\S+\s+\S+/i;

/** Element lines and the `.end` line of a SPICE deck (its first line is the title, whatever it says). */
function spiceFacts(s: string): { elements: number; end: boolean } {
  const body = s
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('*'));
  return {
    elements: body.filter((l) => ELEMENT.test(l) && !l.startsWith('.')).length,
    end: body.some((l) => /^\.end\s*$/i.test(l)),
  };
}

function sniffSpice(s: string): SniffResult | null {
  const { elements, end } = spiceFacts(s);
  return elements > 0 && end ? yes(`SPICE netlist, ${elements} element line(s), .end`) : null;
}

function sniffSpiceWhy(s: string): string {
  const { elements, end } = spiceFacts(s);
  return [elements === 0 ? 'no element lines' : '', end ? '' : 'no .end line'].filter(Boolean).join(', ');
}
