/**
 * Reading a DXF drawing: `dxf-parser` runs in a short-lived worker so a time limit can stop it, and
 * its output is turned into a small model: layers (with colour and linetype, which dxf-parser does
 * not keep for layers and are read from the LAYER table here), entities with their layer, segments,
 * circles and arcs, dimensions with their value measured from the definition points, and texts.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ArtifactInvalidError, VerifierTimeoutError } from '../errors.js';

export type P2 = [number, number];

/** A layer from the LAYER table. */
export interface DxfLayer {
  name: string;
  /** ACI colour number (negative when the layer is off). */
  color: number;
  linetype: string;
}

/** A dimension, with the value measured from its definition points. */
export interface DxfDimension {
  kind: 'linear' | 'aligned' | 'angular' | 'diameter' | 'radius' | 'ordinate';
  layer: string;
  /**
   * Measured from the definition points (degrees for angular); NaN when the points needed are
   * missing. The stored measurement (group 42) is never used: a file can write any number there.
   */
  value: number;
  /** Group 42, when written (what the file says it measures; not evidence). */
  stored?: number;
  /** Text override (group 1), `<>` or empty meaning the measurement. */
  text: string;
}

/** A drawing reduced to what verifiers compare. */
export interface DxfModel {
  layers: DxfLayer[];
  /** Every entity: type and layer (and the linetype, colour it sets itself). */
  entities: { type: string; layer: string; linetype?: string; color?: number }[];
  /** Straight segments: LINEs and the edges of (LW)POLYLINEs. */
  segments: { a: P2; b: P2; layer: string; type: string }[];
  circles: { center: P2; radius: number; layer: string }[];
  arcs: { center: P2; radius: number; start: number; end: number; layer: string }[];
  dimensions: DxfDimension[];
  /** TEXT and MTEXT content, MTEXT formatting removed. */
  texts: { text: string; layer: string; type: string }[];
  /** Extents of the geometry (segments, circles, arcs), or null when there is none. */
  extents: { min: P2; max: P2 } | null;
  /** The header's `$EXTMIN` / `$EXTMAX`, when written: what the file says its extents are (not evidence). */
  headerExtents: { min: P2; max: P2 } | null;
}

/** Options of `readDxf`. */
export interface ReadDxfOptions {
  limitMs?: number;
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
try {
  const mod = require(workerData.parser);
  const Parser = mod.default ?? mod;
  parentPort.postMessage({ ok: true, dxf: new Parser().parseSync(workerData.text) });
} catch (err) {
  parentPort.postMessage({ ok: false, error: String((err && err.message) || err) });
}`;

/** Parses a DXF file. Rejects with `ArtifactInvalidError` or `VerifierTimeoutError`. */
export async function readDxf(bytes: Buffer, opts: ReadDxfOptions = {}): Promise<DxfModel> {
  if (bytes.subarray(0, 22).toString('latin1').startsWith('AutoCAD Binary DXF'))
    throw new ArtifactInvalidError('binary DXF is not supported; write an ASCII DXF');
  const text = bytes.toString('utf8');
  if (!/^\s*0\s*\r?\n\s*SECTION\s*$/m.test(text.slice(0, 4096)))
    throw new ArtifactInvalidError('not a DXF file (no "0 / SECTION" at the start)');
  if (!/\n\s*EOF\s*$/.test(text.slice(-64)))
    throw new ArtifactInvalidError('truncated DXF (no "0 / EOF" at the end)');
  const dxf = await parseInWorker(text, opts.limitMs ?? 20_000);
  if (dxf === null || typeof dxf !== 'object') throw new ArtifactInvalidError('dxf-parser returned nothing');
  return toModel(dxf as ParsedDxf, layerTable(text));
}

function parseInWorker(text: string, limitMs: number): Promise<unknown> {
  const parser = createRequire(import.meta.url).resolve('dxf-parser');
  const w = new Worker(WORKER, { eval: true, workerData: { parser, text }, stdout: true, stderr: true });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void w.terminate();
      reject(new VerifierTimeoutError('DXF parse', limitMs));
    }, limitMs);
    w.once('message', (m: { ok: true; dxf: unknown } | { ok: false; error: string }) => {
      clearTimeout(timer);
      void w.terminate();
      if (m.ok) resolve(m.dxf);
      else reject(new ArtifactInvalidError(`dxf-parser could not read the file: ${m.error}`));
    });
    w.once('error', (err) => {
      clearTimeout(timer);
      reject(new ArtifactInvalidError(`dxf-parser failed: ${err.message}`, { cause: err }));
    });
  });
}

/** Layer name → colour and linetype, from the LAYER table's group codes (2, 62, 6). */
function layerTable(text: string): Map<string, { color: number; linetype: string }> {
  const out = new Map<string, { color: number; linetype: string }>();
  const lines = text.split(/\r?\n/);
  let cur: { name: string; color: number; linetype: string } | null = null;
  let inLayers = false;
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const code = lines[i]!.trim();
    const value = lines[i + 1]!.trim();
    if (code === '0') {
      if (cur !== null) out.set(cur.name, { color: cur.color, linetype: cur.linetype });
      cur = null;
      if (value === 'ENDTAB' || value === 'ENDSEC') inLayers = false;
      if (value === 'LAYER') {
        inLayers = true;
        cur = { name: '', color: 7, linetype: 'Continuous' };
      }
    } else if (inLayers && cur !== null) {
      if (code === '2') cur.name = value;
      else if (code === '62') cur.color = Number(value);
      else if (code === '6') cur.linetype = value;
    }
  }
  out.delete('');
  return out;
}

interface ParsedEntity {
  type: string;
  layer?: string;
  lineType?: string;
  colorIndex?: number;
  vertices?: { x: number; y: number; bulge?: number }[];
  shape?: boolean;
  center?: { x: number; y: number };
  radius?: number;
  startAngle?: number;
  endAngle?: number;
  text?: string;
  dimensionType?: number;
  angle?: number;
  actualMeasurement?: number;
  anchorPoint?: { x: number; y: number };
  linearOrAngularPoint1?: { x: number; y: number };
  linearOrAngularPoint2?: { x: number; y: number };
  diameterOrRadiusPoint?: { x: number; y: number };
  arcPoint?: { x: number; y: number };
}
interface ParsedDxf {
  header?: Record<string, { x: number; y: number } | number>;
  entities?: ParsedEntity[];
  tables?: { layer?: { layers?: Record<string, { name: string; colorIndex?: number }> } };
}

function toModel(dxf: ParsedDxf, table: Map<string, { color: number; linetype: string }>): DxfModel {
  const names = new Set([...Object.keys(dxf.tables?.layer?.layers ?? {}), ...table.keys()]);
  const layers = [...names].map((name) => ({
    name,
    color: table.get(name)?.color ?? dxf.tables?.layer?.layers?.[name]?.colorIndex ?? 7,
    linetype: table.get(name)?.linetype ?? 'Continuous',
  }));
  const m: DxfModel = {
    layers,
    entities: [],
    segments: [],
    circles: [],
    arcs: [],
    dimensions: [],
    texts: [],
    extents: null,
    headerExtents: headerExtents(dxf.header),
  };
  for (const e of dxf.entities ?? []) {
    const layer = e.layer ?? '0';
    m.entities.push({
      type: e.type,
      layer,
      ...(e.lineType === undefined ? {} : { linetype: e.lineType }),
      ...(e.colorIndex === undefined ? {} : { color: e.colorIndex }),
    });
    const v = e.vertices ?? [];
    if (e.type === 'LINE' && v.length >= 2)
      m.segments.push({ a: p(v[0]!), b: p(v[1]!), layer, type: e.type });
    else if ((e.type === 'LWPOLYLINE' || e.type === 'POLYLINE') && v.length >= 2) {
      const n = e.shape === true ? v.length : v.length - 1;
      for (let i = 0; i < n; i++) {
        // A bulged edge is an arc, not a segment: leave it out of the straight segments.
        if ((v[i]!.bulge ?? 0) !== 0) continue;
        m.segments.push({ a: p(v[i]!), b: p(v[(i + 1) % v.length]!), layer, type: e.type });
      }
    } else if (e.type === 'CIRCLE' && e.center !== undefined && e.radius !== undefined)
      m.circles.push({ center: p(e.center), radius: e.radius, layer });
    else if (e.type === 'ARC' && e.center !== undefined && e.radius !== undefined)
      m.arcs.push({
        center: p(e.center),
        radius: e.radius,
        // dxf-parser gives arc angles in radians.
        start: ((e.startAngle ?? 0) * 180) / Math.PI,
        end: ((e.endAngle ?? 0) * 180) / Math.PI,
        layer,
      });
    else if (e.type === 'DIMENSION') {
      const d = dimension(e, layer);
      if (d !== null) m.dimensions.push(d);
    } else if ((e.type === 'TEXT' || e.type === 'MTEXT') && typeof e.text === 'string')
      m.texts.push({ text: e.type === 'MTEXT' ? plainMtext(e.text) : e.text, layer, type: e.type });
  }
  m.extents = extents(m);
  return m;
}

const p = (v: { x: number; y: number }): P2 => [v.x, v.y];
const dist = (a: P2, b: P2): number => Math.hypot(a[0] - b[0], a[1] - b[1]);

function dimension(e: ParsedEntity, layer: string): DxfDimension | null {
  const type = e.dimensionType ?? 0;
  const kind = (['linear', 'aligned', 'angular', 'diameter', 'radius', 'angular', 'ordinate'] as const)[
    type & 7
  ];
  if (kind === undefined) return null;
  const p13 = e.linearOrAngularPoint1 && p(e.linearOrAngularPoint1);
  const p14 = e.linearOrAngularPoint2 && p(e.linearOrAngularPoint2);
  const p10 = e.anchorPoint && p(e.anchorPoint);
  const p15 = e.diameterOrRadiusPoint && p(e.diameterOrRadiusPoint);
  const p16 = e.arcPoint && p(e.arcPoint);
  let value = Number.NaN;
  if (kind === 'linear' && p13 && p14) {
    const a = ((e.angle ?? 0) * Math.PI) / 180;
    value = Math.abs((p14[0] - p13[0]) * Math.cos(a) + (p14[1] - p13[1]) * Math.sin(a));
  } else if (kind === 'aligned' && p13 && p14) value = dist(p13, p14);
  else if ((kind === 'diameter' || kind === 'radius') && p10 && p15) value = dist(p10, p15);
  else if (kind === 'angular' && (type & 7) === 5 && p13 && p14 && p15)
    // Three points: the vertex (15) and a point on each leg (13, 14); the arc (10) picks the side.
    value = sector([dir(p15, p13), dir(p15, p14)], p10 && dir(p15, p10));
  else if (kind === 'angular' && p13 && p14 && p10 && p15) value = angleOfLines([p13, p14], [p10, p15], p16);
  else if (kind === 'ordinate' && p13 && p10)
    value = Math.abs((type & 64) !== 0 ? p13[0] - p10[0] : p13[1] - p10[1]);
  return {
    kind,
    layer,
    value,
    ...(e.actualMeasurement === undefined ? {} : { stored: e.actualMeasurement }),
    text: e.text ?? '',
  };
}

const dir = (from: P2, to: P2): number => Math.atan2(to[1] - from[1], to[0] - from[0]);
const ccw = (from: number, to: number): number =>
  (((to - from) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);

/**
 * The angle in degrees between two rays (directions in radians): the side that holds `at` when
 * given, else the side under 180°.
 */
function sector([a, b]: [number, number], at?: number): number {
  const s = ccw(a, b);
  const inside = at === undefined ? s <= Math.PI : ccw(a, at) <= s;
  return ((inside ? s : 2 * Math.PI - s) * 180) / Math.PI;
}

/** The angle between two lines, in the one of the four sectors at their crossing that holds `arc`. */
function angleOfLines(l1: [P2, P2], l2: [P2, P2], arc?: P2): number {
  const d1 = dir(l1[0], l1[1]);
  const d2 = dir(l2[0], l2[1]);
  const [x1, y1] = l1[0];
  const [x2, y2] = l2[0];
  const [u1, v1] = [Math.cos(d1), Math.sin(d1)];
  const [u2, v2] = [Math.cos(d2), Math.sin(d2)];
  const den = u1 * v2 - v1 * u2;
  if (Math.abs(den) < 1e-12) return 0;
  const t = ((x2 - x1) * v2 - (y2 - y1) * u2) / den;
  const c: P2 = [x1 + t * u1, y1 + t * v1];
  if (arc === undefined) return sector([d1, d2]);
  const rays = [d1, d1 + Math.PI, d2, d2 + Math.PI].map((r) => ccw(0, r)).sort((x, y) => x - y);
  const at = ccw(0, dir(c, arc));
  for (let i = 0; i < 4; i++) {
    const lo = rays[i]!;
    const hi = i === 3 ? rays[0]! + 2 * Math.PI : rays[i + 1]!;
    const a = at < lo ? at + 2 * Math.PI : at;
    if (a >= lo && a <= hi) return ((hi - lo) * 180) / Math.PI;
  }
  return sector([d1, d2]);
}

/** `$EXTMIN` / `$EXTMAX` from the header, when both are written and finite. */
function headerExtents(h: ParsedDxf['header']): { min: P2; max: P2 } | null {
  const min = h?.['$EXTMIN'];
  const max = h?.['$EXTMAX'];
  if (typeof min !== 'object' || typeof max !== 'object') return null;
  const box = { min: p(min), max: p(max) };
  return [...box.min, ...box.max].every((x) => Number.isFinite(x) && Math.abs(x) < 1e19) ? box : null;
}

/** MTEXT content without formatting codes: `\P` is a new line, `{\fArial;x}` is `x`. */
export function plainMtext(s: string): string {
  return s
    .replace(/\\P/g, '\n')
    .replace(/\\[ACFHQTWfhpqtw][^;]*;/g, '')
    .replace(/\\[LlOoKkNn~]/g, '')
    .replace(/\\S([^;]*);/g, (_, x: string) => x.replace(/[#^]/, '/'))
    .replace(/[{}]/g, '')
    .replace(/\\\\/g, '\\');
}

function extents(m: DxfModel): { min: P2; max: P2 } | null {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const s of m.segments) {
    xs.push(s.a[0], s.b[0]);
    ys.push(s.a[1], s.b[1]);
  }
  for (const c of m.circles) {
    xs.push(c.center[0] - c.radius, c.center[0] + c.radius);
    ys.push(c.center[1] - c.radius, c.center[1] + c.radius);
  }
  for (const a of m.arcs) {
    const span = (((a.end - a.start) % 360) + 360) % 360 || 360;
    for (let k = 0; k <= 72; k++) {
      const t = ((a.start + (span * k) / 72) * Math.PI) / 180;
      xs.push(a.center[0] + a.radius * Math.cos(t));
      ys.push(a.center[1] + a.radius * Math.sin(t));
    }
  }
  if (xs.length === 0) return null;
  return { min: [Math.min(...xs), Math.min(...ys)], max: [Math.max(...xs), Math.max(...ys)] };
}
