/**
 * Reading a Gerber fabrication package for `gerber.check`: RS-274X files (X2 attributes or X1
 * comments) and Excellon drill files, from a zip or a folder; layer names, object counts, extents.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import JSZip from 'jszip';

/** Layer names (KiCad's): `F_Cu`, `B_Cu`, `In1_Cu`, `F_Mask`, `F_SilkS`, `F_Paste`, `Edge_Cuts`, `Drill`. */
export const LAYER = /^(?:[FB]_(?:Cu|Mask|Paste|SilkS|Fab|CrtYd|Adhes)|In\d+_Cu|Edge_Cuts|Drill)$/;
const FIXED = new Map(
  ['F_Cu', 'B_Cu', 'F_Mask', 'B_Mask', 'F_Paste', 'B_Paste', 'F_SilkS', 'B_SilkS', 'F_Fab', 'B_Fab']
    .concat(['F_CrtYd', 'B_CrtYd', 'F_Adhes', 'B_Adhes', 'Edge_Cuts', 'Drill'])
    .map((n) => [n.toLowerCase(), n]),
);

/** `F.Cu`, `f_cu`, `F_Silkscreen`, `Profile` → the canonical name (`F_Cu`, `F_SilkS`, `Edge_Cuts`). */
export function canonLayer(name: string): string {
  const n = name.replace(/\./g, '_').replace(/silkscreen$/i, 'SilkS');
  if (/^profile$/i.test(n)) return 'Edge_Cuts';
  const inner = /^in(\d+)_cu$/i.exec(n);
  return inner ? `In${Number(inner[1])}_Cu` : (FIXED.get(n.toLowerCase()) ?? n);
}

/** A bounding box in mm. */
export interface Box {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** One file of a package, as read. */
export interface GerberFile {
  /** Path inside the zip or folder. */
  name: string;
  kind: 'gerber' | 'excellon' | 'other';
  /** Canonical layer, or null when neither attribute nor name tells. */
  layer: string | null;
  /** Where the layer came from. */
  via: 'attribute' | 'name' | 'content' | null;
  /** The `%TF.FileFunction` value, e.g. `Copper,L1,Top`. */
  fileFunction?: string;
  /** Draws, arcs, flashes and regions (Excellon: drill hits). */
  objects: number;
  /** Extent of the objects (centre lines, flash positions, region vertices), in mm. */
  bbox?: Box;
  /** Why the file is not valid RS-274X (first problem found). */
  problem?: string;
}

const GERBER_EXT = /\.(gbr|gbx|ger|pho|art|g[tb][lsop]|gm\d*|gko|gml|g\d+)$/i;
const PROTEL: Record<string, string> = {
  gtl: 'F_Cu',
  gbl: 'B_Cu',
  gts: 'F_Mask',
  gbs: 'B_Mask',
  gto: 'F_SilkS',
  gbo: 'B_SilkS',
  gtp: 'F_Paste',
  gbp: 'B_Paste',
  gko: 'Edge_Cuts',
  gml: 'Edge_Cuts',
  gm: 'Edge_Cuts',
  gm1: 'Edge_Cuts',
};

/** The layer a `%TF.FileFunction` value names (`Copper,L2,Bot` → `B_Cu`), or null. */
export function layerOfFunction(f: string): string | null {
  const [fn = '', ...rest] = f.split(',').map((s) => s.trim());
  const side = rest.includes('Top') ? 'F' : rest.includes('Bot') ? 'B' : null;
  if (fn === 'Copper') {
    if (side) return `${side}_Cu`;
    const l = /^L(\d+)$/.exec(rest[0] ?? '');
    return l && rest.includes('Inr') ? `In${Number(l[1]) - 1}_Cu` : null;
  }
  const simple: Record<string, string> = { Soldermask: 'Mask', Legend: 'SilkS', Paste: 'Paste' };
  if (simple[fn] && side) return `${side}_${simple[fn]}`;
  if (fn === 'Profile') return 'Edge_Cuts';
  return /^(Plated|NonPlated|MixedPlating)$/.test(fn) ? 'Drill' : null;
}

/** The layer a file name names (`board-F_Cu.gbr`, `board.gbl`, `x-In1.Cu.gbr`), or null. */
export function layerOfName(name: string): string | null {
  const base = path.posix.basename(name.replace(/\\/g, '/'));
  const kicad =
    /[-_.]((?:F|B)[._](?:Cu|Mask|Paste|SilkS|Silkscreen|Fab|CrtYd|Adhes)|In\d+[._]Cu|Edge[._]Cuts)\.\w+$/i.exec(
      base,
    );
  if (kicad) return canonLayer(kicad[1]!);
  const ext = path.posix.extname(base).slice(1).toLowerCase();
  if (PROTEL[ext]) return PROTEL[ext];
  const inner = /^g(\d+)$/.exec(ext);
  return inner ? `In${Number(inner[1])}_Cu` : null;
}

interface Fmt {
  /** Integer and decimal digits of X and Y. */
  int: [number, number];
  dec: [number, number];
  trailing: boolean;
  incremental: boolean;
}

/** Reads one RS-274X file: its FileFunction, object count, extent, and the first problem if any. */
export function parseGerber(text: string): Omit<GerberFile, 'name' | 'kind' | 'layer' | 'via'> {
  const out: Omit<GerberFile, 'name' | 'kind' | 'layer' | 'via'> = { objects: 0 };
  let fmt: Fmt | undefined;
  let unit = 1;
  let [x, y, interp, d, multi, region, regionDraws, ended] = [0, 0, 1, 2, true, false, 0, false];
  const box: Box = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  const put = (px: number, py: number) => {
    box.minX = Math.min(box.minX, px);
    box.minY = Math.min(box.minY, py);
    box.maxX = Math.max(box.maxX, px);
    box.maxY = Math.max(box.maxY, py);
  };
  const problem = (p: string) => void (out.problem ??= p);
  const num = (s: string | undefined, axis: 0 | 1, base: number): number => {
    if (s === undefined || fmt === undefined) return base;
    const digits = s.replace(/^[+-]/, '');
    // Trailing-zero omission (deprecated): the digits are the leading ones of int + dec.
    const padded = fmt.trailing ? digits.padEnd(fmt.int[axis] + fmt.dec[axis], '0') : digits;
    const v = ((s.startsWith('-') ? -1 : 1) * Number(padded) * unit) / 10 ** fmt.dec[axis];
    return fmt.incremental ? base + v : v;
  };
  const extended = (b: string) => {
    const fs = /^FS([LTD]?)([AI])X(\d)(\d)Y(\d)(\d)$/.exec(b);
    if (fs)
      fmt = {
        int: [Number(fs[3]), Number(fs[5])],
        dec: [Number(fs[4]), Number(fs[6])],
        trailing: fs[1] === 'T',
        incremental: fs[2] === 'I',
      };
    else if (b === 'MOMM') unit = 1;
    else if (b === 'MOIN') unit = 25.4;
    else if (b.startsWith('TF.FileFunction,')) out.fileFunction = b.slice(16);
  };
  const word = (w: string) => {
    const c = /^G0*4(?:\s|$)(.*)$/s.exec(w);
    if (c) {
      const attr = /^\s*#@!\s*TF\.FileFunction,(.*)$/.exec(c[1] ?? '');
      if (attr) out.fileFunction ??= attr[1]!.trim();
      return;
    }
    if (/^M0*[02]$/.test(w)) return void (ended = true);
    const m =
      /^(?:G0*(\d+))?(?:X([+-]?\d+))?(?:Y([+-]?\d+))?(?:I([+-]?\d+))?(?:J([+-]?\d+))?(?:D0*(\d+))?$/.exec(w);
    if (m === null || w === '') return problem(`unknown command "${w.slice(0, 24)}"`);
    const g = m[1] === undefined ? undefined : Number(m[1]);
    if (g === 1 || g === 2 || g === 3) interp = g;
    else if (g === 36) [region, regionDraws] = [true, 0];
    else if (g === 37) {
      if (regionDraws > 0) out.objects++;
      region = false;
    } else if (g === 74 || g === 75) multi = g === 75;
    else if (g === 70 || g === 71) unit = g === 70 ? 25.4 : 1;
    else if (g === 91) fmt = fmt && { ...fmt, incremental: true };
    const dn = m[6] === undefined ? undefined : Number(m[6]);
    if (dn !== undefined && dn >= 10) return;
    const coords = m[2] !== undefined || m[3] !== undefined;
    if (coords && fmt === undefined) return problem('coordinates before the format statement %FS…*%');
    if (dn !== undefined) d = dn;
    else if (!coords) return;
    const [nx, ny] = [num(m[2], 0, x), num(m[3], 1, y)];
    if (d === 1) {
      if (region) regionDraws++;
      else out.objects++;
      put(x, y);
      put(nx, ny);
      if (interp !== 1 && multi) arcExtent(x, y, nx, ny, num(m[4], 0, 0), num(m[5], 1, 0), interp === 2, put);
    } else if (d === 3) {
      out.objects++;
      put(nx, ny);
    }
    [x, y] = [nx, ny];
  };
  if (!/%FS/.test(text)) return { ...out, problem: 'no format statement %FS…*%: not RS-274X' };
  for (let i = 0; i < text.length && out.problem === undefined;) {
    const ch = text[i]!;
    if (/\s/.test(ch)) i++;
    else if (ch === '%') {
      const j = text.indexOf('%', i + 1);
      if (j < 0) return { ...out, problem: 'an extended command (%…%) is not closed (truncated?)' };
      for (const b of text.slice(i + 1, j).split('*')) if (b.trim()) extended(b.trim());
      i = j + 1;
    } else {
      const j = text.indexOf('*', i);
      if (j < 0) {
        problem(`text after the last "*": "${text.slice(i, i + 24).trim()}" (truncated?)`);
        break;
      }
      word(text.slice(i, j).trim());
      i = j + 1;
    }
  }
  if (fmt === undefined) problem('no format statement %FS…*%: not RS-274X');
  else if (!ended) problem('no end-of-file M02* (truncated?)');
  if (box.minX <= box.maxX) out.bbox = box;
  return out;
}

/** Adds the extent of a multi-quadrant arc from (x0, y0) to (x1, y1) around (x0 + i, y0 + j). */
function arcExtent(
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  i: number,
  j: number,
  clockwise: boolean,
  put: (x: number, y: number) => void,
): void {
  const [cx, cy] = [x0 + i, y0 + j];
  const r = Math.hypot(i, j);
  let [a0, a1] = [Math.atan2(y0 - cy, x0 - cx), Math.atan2(y1 - cy, x1 - cx)];
  if (clockwise) [a0, a1] = [a1, a0];
  while (a1 <= a0 + 1e-9) a1 += 2 * Math.PI; // start = end: a full circle
  for (let k = Math.ceil(a0 / (Math.PI / 2)); k * (Math.PI / 2) <= a1; k++)
    put(cx + r * Math.cos((k * Math.PI) / 2), cy + r * Math.sin((k * Math.PI) / 2));
}

/** Reads one file of a package by content and name. */
export function readGerberFile(name: string, bytes: Buffer): GerberFile {
  const text = bytes.toString('latin1');
  if (/^(\s*;[^\n]*\n)*\s*M48\b/.test(text)) {
    const hits = text.split(/\r?\n/).filter((l) => /^(?:T\d+)?X[+-]?[\d.]+(?:Y[+-]?[\d.]+)?/.test(l.trim()));
    return { name, kind: 'excellon', layer: 'Drill', via: 'content', objects: hits.length };
  }
  const gerberLike = /%FS[LTD]?[AI]X\d\dY\d\d\*%/.test(text) || GERBER_EXT.test(name);
  if (!gerberLike) return { name, kind: 'other', layer: null, via: null, objects: 0 };
  const g = parseGerber(text);
  const byAttr = g.fileFunction === undefined ? null : layerOfFunction(g.fileFunction);
  const byName = layerOfName(name);
  const layer = byAttr ?? byName;
  return { name, kind: 'gerber', layer, via: byAttr ? 'attribute' : byName ? 'name' : null, ...g };
}

/** Uncompressed sizes of a zip's entries, from its central directory; null when it cannot be read. */
function zipSizes(b: Buffer): number[] | null {
  for (let e = b.length - 22; e >= Math.max(0, b.length - 65_557); e--) {
    if (b.readUInt32LE(e) !== 0x06054b50) continue;
    const sizes: number[] = [];
    let p = b.readUInt32LE(e + 16);
    for (let k = b.readUInt16LE(e + 10); k > 0; k--) {
      if (p + 46 > b.length || b.readUInt32LE(p) !== 0x02014b50) return null;
      sizes.push(b.readUInt32LE(p + 24));
      p += 46 + b.readUInt16LE(p + 28) + b.readUInt16LE(p + 30) + b.readUInt16LE(p + 32);
    }
    return sizes;
  }
  return null;
}

/** The files of a zip or folder, or why they cannot be read. */
export async function readPackage(
  full: string,
  rel: string,
  limits: { maxBytes: number; maxUnpacked: number },
): Promise<{ files: { name: string; bytes: Buffer }[] } | { error: string }> {
  const st = await stat(full).catch(() => null);
  if (st === null) return { error: `${rel} is missing` };
  if (st.isDirectory()) {
    const names = (await readdir(full, { recursive: true })).map(String).sort();
    const files: { name: string; bytes: Buffer }[] = [];
    let total = 0;
    for (const n of names) {
      const s = await stat(path.join(full, n));
      if (!s.isFile()) continue;
      if ((total += s.size) > limits.maxUnpacked) return { error: `${rel} holds more than max_unpacked_mb` };
      files.push({ name: n.split(path.sep).join('/'), bytes: await readFile(path.join(full, n)) });
    }
    return { files };
  }
  if (st.size === 0) return { error: `${rel} is empty (0 bytes)` };
  if (st.size > limits.maxBytes) return { error: `${rel} is larger than max_mb` };
  const bytes = await readFile(full);
  if (bytes.readUInt32LE(0) !== 0x04034b50)
    return {
      error: `${rel} is not a zip archive (starts with "${bytes.subarray(0, 12).toString('latin1')}")`,
    };
  const sizes = zipSizes(bytes);
  if (sizes === null) return { error: `${rel}: corrupt zip (no readable central directory; truncated?)` };
  if (sizes.reduce((a, s) => a + s, 0) > limits.maxUnpacked)
    return { error: `${rel} unpacks to more than max_unpacked_mb` };
  try {
    const zip = await JSZip.loadAsync(bytes, { checkCRC32: true });
    const entries = Object.values(zip.files).filter((f) => !f.dir && !f.name.startsWith('__MACOSX/'));
    const files = await Promise.all(
      entries.map(async (f) => ({ name: f.name, bytes: await f.async('nodebuffer') })),
    );
    return { files: files.sort((a, b) => (a.name < b.name ? -1 : 1)) };
  } catch (err) {
    return { error: `${rel}: corrupt zip: ${err instanceof Error ? err.message : String(err)}` };
  }
}
