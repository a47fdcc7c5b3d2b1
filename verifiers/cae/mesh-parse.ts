/**
 * Mesh readers for `mesh.check`: gmsh `.msh` (format 4.1 and 2.2, ASCII) and Abaqus/CalculiX `.inp`
 * (as gmsh writes it). They count nodes and elements by type and collect named groups; they do not
 * keep connectivity. A binary, truncated or malformed file throws `ArtifactInvalidError` naming the
 * line; a parse past its time limit throws `VerifierTimeoutError`.
 */
import { ArtifactInvalidError } from '../errors.js';
import { deadline } from '../timeout.js';
import { elementInfo, gmshElementType, type ElementInfo } from './elements.js';

/** A named group of the mesh: a gmsh physical group, or an Abaqus NSET / ELSET. */
export interface MeshGroup {
  name: string;
  kind: 'physical' | 'nset' | 'elset';
  /** Dimension of a physical group; undefined for NSET / ELSET. */
  dim?: number;
  /** Number of members (elements for physical groups and ELSETs, nodes for NSETs). */
  size: number;
}

/** What a mesh reader found. */
export interface MeshSummary {
  format: 'msh4' | 'msh2' | 'inp';
  nodes: number;
  /** Element count by type name (`C3D10`, `tet10`, …), all dimensions. */
  elementsByType: Record<string, number>;
  groups: MeshGroup[];
  /** Axis-aligned bounds of the nodes. */
  bbox: { min: [number, number, number]; max: [number, number, number] };
}

/** Elements of `summary` of dimension `dim`, with their type info. */
export function elementsOfDim(summary: MeshSummary, dim: number): { info: ElementInfo; count: number }[] {
  return Object.entries(summary.elementsByType)
    .map(([name, count]) => ({ info: elementInfo(name), count }))
    .filter((e) => e.info.dim === dim);
}

/** Highest element dimension present (0 when there are no elements). */
export function meshDimension(summary: MeshSummary): number {
  return Math.max(0, ...Object.keys(summary.elementsByType).map((n) => elementInfo(n).dim));
}

/** Reads a mesh, choosing the reader by content. */
export function parseMesh(text: string, limitMs: number): MeshSummary {
  const head = text.slice(0, 4096);
  if (/^\s*\$MeshFormat/.test(head)) return parseMsh(text, limitMs);
  if (/^\s*\*(heading|node|include|element)\b/im.test(head) || /^\s*\*\*/.test(head))
    return parseInp(text, limitMs);
  throw new ArtifactInvalidError('not a mesh: no $MeshFormat (gmsh) or *NODE/*HEADING (Abaqus .inp) header');
}

class Lines {
  private i = 0;
  private readonly lines: string[];
  private readonly clock: { check(): void };
  constructor(text: string, limitMs: number) {
    this.lines = text.split(/\r?\n/);
    this.clock = deadline(limitMs, 'mesh parse');
  }
  get line(): number {
    return this.i;
  }
  next(what: string): string {
    if ((this.i & 4095) === 0) this.clock.check();
    if (this.i >= this.lines.length)
      throw new ArtifactInvalidError(`truncated: end of file while reading ${what}`);
    return this.lines[this.i++]!.trim();
  }
  done(): boolean {
    while (this.i < this.lines.length && this.lines[this.i]!.trim() === '') this.i++;
    return this.i >= this.lines.length;
  }
  ints(what: string, min = 1): number[] {
    const s = this.next(what);
    const xs = s.split(/\s+/).map(Number);
    if (xs.length < min || xs.some((x) => !Number.isFinite(x)))
      throw new ArtifactInvalidError(
        `line ${this.i}: expected ${min}+ numbers for ${what}, got "${s.slice(0, 60)}"`,
      );
    return xs;
  }
}

function parseMsh(text: string, limitMs: number): MeshSummary {
  const L = new Lines(text, limitMs);
  let version = 0;
  let nodes = 0;
  const byType: Record<string, number> = {};
  const physNames = new Map<string, { dim: number; name: string }>();
  // entity (dim:tag) → physical tags, from $Entities (msh4)
  const entityPhys = new Map<string, number[]>();
  const physSize = new Map<string, number>();
  const box = newBox();
  const addPhys = (dim: number, tag: number, n: number): void => {
    const k = `${dim}:${tag}`;
    physSize.set(k, (physSize.get(k) ?? 0) + n);
  };
  while (!L.done()) {
    const sec = L.next('section');
    if (!sec.startsWith('$')) continue;
    const name = sec.slice(1);
    if (name === 'MeshFormat') {
      const [v, fileType] = L.next('$MeshFormat').split(/\s+/).map(Number);
      if (fileType !== 0)
        throw new ArtifactInvalidError('binary .msh is not supported: save with Mesh.Binary=0');
      if (v === undefined || !(v >= 2 && v < 5))
        throw new ArtifactInvalidError(`unsupported .msh version ${String(v)}`);
      version = v;
    } else if (name === 'PhysicalNames') {
      const [n] = L.ints('$PhysicalNames count');
      for (let k = 0; k < n!; k++) {
        const m = /^(\d+)\s+(\d+)\s+"(.*)"$/.exec(L.next('physical name'));
        if (m === null) throw new ArtifactInvalidError(`line ${L.line}: malformed physical name`);
        physNames.set(`${m[1]}:${m[2]}`, { dim: Number(m[1]), name: m[3]! });
      }
    } else if (name === 'Entities' && version >= 4) {
      const counts = L.ints('$Entities counts', 4);
      for (let dim = 0; dim < 4; dim++)
        for (let k = 0; k < counts[dim]!; k++) {
          const xs = L.ints('entity');
          // point: tag x y z nPhys phys…; others: tag minx miny minz maxx maxy maxz nPhys phys…
          const at = dim === 0 ? 4 : 7;
          const np = xs[at] ?? 0;
          entityPhys.set(`${dim}:${xs[0]}`, xs.slice(at + 1, at + 1 + np).map(Math.abs));
        }
    } else if (name === 'Nodes') {
      if (version >= 4) {
        const [nBlocks] = L.ints('$Nodes header', 4);
        for (let b = 0; b < nBlocks!; b++) {
          const [, , , n] = L.ints('node block header', 4);
          for (let k = 0; k < n!; k++) L.next('node tag');
          for (let k = 0; k < n!; k++) {
            const xs = L.ints('node coordinates', 3);
            // parametric nodes carry u (v) after x y z on the same line: only x y z are read
            grow(box, xs[0]!, xs[1]!, xs[2]!);
          }
          nodes += n!;
        }
      } else {
        const [n] = L.ints('$Nodes count');
        for (let k = 0; k < n!; k++) {
          const xs = L.ints('node', 4);
          grow(box, xs[1]!, xs[2]!, xs[3]!);
        }
        nodes = n!;
      }
    } else if (name === 'Elements') {
      if (version >= 4) {
        const [nBlocks] = L.ints('$Elements header', 4);
        for (let b = 0; b < nBlocks!; b++) {
          const [dim, tag, type, n] = L.ints('element block header', 4);
          const t = gmshElementType(type!);
          for (let k = 0; k < n!; k++) L.next('element');
          byType[t] = (byType[t] ?? 0) + n!;
          for (const p of entityPhys.get(`${dim}:${tag}`) ?? []) addPhys(dim!, p, n!);
        }
      } else {
        const [n] = L.ints('$Elements count');
        for (let k = 0; k < n!; k++) {
          const xs = L.ints('element', 4);
          const t = gmshElementType(xs[1]!);
          byType[t] = (byType[t] ?? 0) + 1;
          if (xs[2]! >= 1) addPhys(elementInfo(t).dim, xs[3]!, 1);
        }
      }
    } else {
      // skip unknown sections ($NodeData, $Periodic, …)
      while (!L.next(`$End${name}`).startsWith(`$End${name}`));
      continue;
    }
    const end = L.next(`$End${name}`);
    if (end !== `$End${name}`)
      throw new ArtifactInvalidError(`line ${L.line}: expected $End${name}, got "${end.slice(0, 40)}"`);
  }
  if (version === 0) throw new ArtifactInvalidError('no $MeshFormat section');
  if (nodes === 0) throw new ArtifactInvalidError('the mesh has no nodes');
  const groups: MeshGroup[] = [...physNames.entries()].map(([k, v]) => ({
    name: v.name,
    kind: 'physical',
    dim: v.dim,
    size: physSize.get(k) ?? 0,
  }));
  return { format: version >= 4 ? 'msh4' : 'msh2', nodes, elementsByType: byType, groups, bbox: finish(box) };
}

function parseInp(text: string, limitMs: number): MeshSummary {
  const L = new Lines(text, limitMs);
  let nodes = 0;
  const byType: Record<string, number> = {};
  const groups = new Map<string, MeshGroup>();
  const box = newBox();
  let mode:
    | { kind: 'node' }
    | { kind: 'element'; type: string; elset?: string }
    | { kind: 'set'; g: MeshGroup; generate: boolean }
    | null = null;
  let continuation = false;
  while (!L.done()) {
    const line = L.next('keyword or data line');
    if (line === '' || line.startsWith('**')) continue;
    if (line.startsWith('*')) {
      continuation = false;
      const kw = keyword(line);
      if (kw.name === 'NODE') mode = { kind: 'node' };
      else if (kw.name === 'ELEMENT') {
        const type = kw.opts['TYPE'];
        if (type === undefined) throw new ArtifactInvalidError(`line ${L.line}: *ELEMENT without TYPE=`);
        mode = { kind: 'element', type, ...(kw.opts['ELSET'] ? { elset: kw.opts['ELSET'] } : {}) };
      } else if (kw.name === 'NSET' || kw.name === 'ELSET') {
        const name = kw.opts[kw.name];
        if (name === undefined) throw new ArtifactInvalidError(`line ${L.line}: *${kw.name} without a name`);
        const kind = kw.name === 'NSET' ? 'nset' : 'elset';
        const key = `${kind}:${name.toUpperCase()}`;
        const g = groups.get(key) ?? { name, kind, size: 0 };
        groups.set(key, g);
        mode = { kind: 'set', g, generate: 'GENERATE' in kw.opts };
      } else mode = null;
      continue;
    }
    if (mode === null) continue;
    const fields = line.split(',').map((s) => s.trim());
    if (mode.kind === 'node') {
      const xs = fields.slice(0, 4).map(Number);
      if (xs.length < 3 || xs.some((x) => !Number.isFinite(x)))
        throw new ArtifactInvalidError(`line ${L.line}: malformed node "${line.slice(0, 60)}"`);
      grow(box, xs[1]!, xs[2]!, xs[3] ?? 0);
      nodes++;
    } else if (mode.kind === 'element') {
      // long elements continue on the next line after a trailing comma
      if (!continuation) {
        byType[mode.type] = (byType[mode.type] ?? 0) + 1;
        if (mode.elset !== undefined) {
          const key = `elset:${mode.elset.toUpperCase()}`;
          const g = groups.get(key) ?? { name: mode.elset, kind: 'elset' as const, size: 0 };
          g.size++;
          groups.set(key, g);
        }
      }
      continuation = line.endsWith(',');
    } else if (mode.generate) {
      const [a, b, step] = fields.map(Number);
      mode.g.size += Math.max(0, Math.floor(((b ?? a ?? 0) - (a ?? 0)) / (step || 1)) + 1);
    } else mode.g.size += fields.filter((f) => f !== '').length;
  }
  if (nodes === 0) throw new ArtifactInvalidError('the .inp has no *NODE data');
  return { format: 'inp', nodes, elementsByType: byType, groups: [...groups.values()], bbox: finish(box) };
}

/** Splits `*ELEMENT, type=C3D10, ELSET=Volume1` into a name and upper-cased option keys. */
export function keyword(line: string): { name: string; opts: Record<string, string> } {
  const parts = line
    .slice(1)
    .split(',')
    .map((s) => s.trim());
  const opts: Record<string, string> = {};
  for (const p of parts.slice(1)) {
    const eq = p.indexOf('=');
    if (eq < 0) opts[p.toUpperCase()] = '';
    else opts[p.slice(0, eq).trim().toUpperCase()] = p.slice(eq + 1).trim();
  }
  return { name: (parts[0] ?? '').toUpperCase(), opts };
}

type Box = { min: [number, number, number]; max: [number, number, number] };
function newBox(): Box {
  return { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
}
function grow(b: Box, x: number, y: number, z: number): void {
  const p = [x, y, z];
  for (let i = 0; i < 3; i++) {
    b.min[i] = Math.min(b.min[i]!, p[i]!);
    b.max[i] = Math.max(b.max[i]!, p[i]!);
  }
}
function finish(b: Box): Box {
  return b.min[0] === Infinity ? { min: [0, 0, 0], max: [0, 0, 0] } : b;
}
