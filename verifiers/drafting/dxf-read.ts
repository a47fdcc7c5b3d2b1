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
  /** Measured from the definition points (degrees for angular). */
  value: number;
  /** Group 42, when written. */
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
}
interface ParsedDxf {
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
  const kind = (['linear', 'aligned', 'angular', 'diameter', 'radius', 'angular', 'ordinate'] as const)[
    (e.dimensionType ?? 0) & 7
  ];
  const p13 = e.linearOrAngularPoint1 && p(e.linearOrAngularPoint1);
  const p14 = e.linearOrAngularPoint2 && p(e.linearOrAngularPoint2);
  const p10 = e.anchorPoint && p(e.anchorPoint);
  const p15 = e.diameterOrRadiusPoint && p(e.diameterOrRadiusPoint);
  let value: number | undefined;
  if (kind === 'linear' && p13 && p14) {
    const a = ((e.angle ?? 0) * Math.PI) / 180;
    value = Math.abs((p14[0] - p13[0]) * Math.cos(a) + (p14[1] - p13[1]) * Math.sin(a));
  } else if (kind === 'aligned' && p13 && p14) value = dist(p13, p14);
  else if ((kind === 'diameter' || kind === 'radius') && p10 && p15) value = dist(p10, p15);
  value ??= e.actualMeasurement;
  if (kind === undefined || value === undefined) return null;
  return {
    kind,
    layer,
    value,
    ...(e.actualMeasurement === undefined ? {} : { stored: e.actualMeasurement }),
    text: e.text ?? '',
  };
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
