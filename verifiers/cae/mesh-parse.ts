/**
 * Mesh readers for `mesh.check`: gmsh `.msh` (format 4.1 and 2.2, ASCII) and Abaqus/CalculiX `.inp`
 * (as gmsh writes it). They count nodes and elements by type and collect named groups; they do not
 * keep connectivity. A binary, truncated or malformed file throws `ArtifactInvalidError` naming the
 * line; a parse past its time limit throws `VerifierTimeoutError`.
 */
import { ArtifactInvalidError, isArtifactInvalid } from '../errors.js';
import { deadline } from '../timeout.js';
import { boxOf, setMembers } from './deck-model.js';
import { parseDeck } from './deck-parse.js';
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
  if (/^\s*\$MeshFormat/.test(head)) {
    try {
      return parseMsh(text, limitMs);
    } catch (err) {
      // a file cut short shows up as whatever line it was cut in: name the cause instead
      const cut = isArtifactInvalid(err) ? mshTruncation(text) : null;
      throw cut === null ? err : new ArtifactInvalidError(`${cut} (${(err as Error).message})`);
    }
  }
  if (/^\s*\*(heading|node|include|element)\b/im.test(head) || /^\s*\*\*/.test(head))
    return parseInp(text, limitMs);
  throw new ArtifactInvalidError('not a mesh: no $MeshFormat (gmsh) or *NODE/*HEADING (Abaqus .inp) header');
}

/**
 * A .msh ends with the `$End…` line of its last section. When it does not, the phrase naming the
 * section it was cut in (`truncated: the file ends inside $Elements …`); otherwise null.
 */
function mshTruncation(text: string): string | null {
  const body = text.trimEnd();
  const lastHeader = body.lastIndexOf('\n$');
  const tail = body.slice(lastHeader + 1);
  if (/^\$End\w+$/.test(tail)) return null;
  const lines = body.split('\n').length;
  const open = [...body.matchAll(/^\$(?!End)(\w+)\s*$/gm)].at(-1)?.[1];
  return `truncated: the file ends at line ${lines} inside ${open === undefined ? 'its first section' : `$${open}`} without $End${open ?? ''} (last line "${body.slice(body.lastIndexOf('\n') + 1).slice(0, 40)}")`;
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
  const tags = new Set<number>();
  let sawElements = false;
  const elementNodes = (id: number, type: string, ns: number[], line: number): void => {
    const need = elementInfo(type).nodes;
    if (need > 0 && ns.length !== need)
      throw new ArtifactInvalidError(
        `line ${line}: element ${id} (${type}) has ${ns.length} nodes, the type has ${need}`,
      );
    // nodes come before elements in every .msh gmsh writes
    const undefinedNode = ns.find((n) => !tags.has(n));
    if (undefinedNode !== undefined)
      throw new ArtifactInvalidError(
        `line ${line}: element ${id} (${type}) uses node ${undefinedNode}, which $Nodes does not define`,
      );
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
          for (let k = 0; k < n!; k++) tags.add(Number(L.next('node tag')));
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
          tags.add(xs[0]!);
          grow(box, xs[1]!, xs[2]!, xs[3]!);
        }
        nodes = n!;
      }
    } else if (name === 'Elements') {
      sawElements = true;
      if (version >= 4) {
        const [nBlocks] = L.ints('$Elements header', 4);
        for (let b = 0; b < nBlocks!; b++) {
          const [dim, tag, type, n] = L.ints('element block header', 4);
          const t = gmshElementType(type!);
          for (let k = 0; k < n!; k++) {
            const xs = L.ints('element', 2);
            elementNodes(xs[0]!, t, xs.slice(1), L.line);
          }
          byType[t] = (byType[t] ?? 0) + n!;
          for (const p of entityPhys.get(`${dim}:${tag}`) ?? []) addPhys(dim!, p, n!);
        }
      } else {
        const [n] = L.ints('$Elements count');
        for (let k = 0; k < n!; k++) {
          const xs = L.ints('element', 4);
          const t = gmshElementType(xs[1]!);
          elementNodes(xs[0]!, t, xs.slice(3 + xs[2]!), L.line);
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
  if (!sawElements) throw new ArtifactInvalidError('the .msh has no $Elements section');
  const groups: MeshGroup[] = [...physNames.entries()].map(([k, v]) => ({
    name: v.name,
    kind: 'physical',
    dim: v.dim,
    size: physSize.get(k) ?? 0,
  }));
  return { format: version >= 4 ? 'msh4' : 'msh2', nodes, elementsByType: byType, groups, bbox: finish(box) };
}

function parseInp(text: string, limitMs: number): MeshSummary {
  const deck = parseDeck({ rel: '', text }, null, limitMs);
  if (deck.nodes.size === 0) throw new ArtifactInvalidError('the .inp has no *NODE data');
  if (deck.meshProblems.length > 0)
    throw new ArtifactInvalidError(
      deck.meshProblems[0]! +
        (deck.meshProblems.length > 1 ? ` (and ${deck.meshProblems.length - 1} more defects)` : ''),
    );
  const groups: MeshGroup[] = [];
  for (const kind of ['nset', 'elset'] as const)
    for (const g of (kind === 'nset' ? deck.nsets : deck.elsets).values())
      groups.push({ name: g.name, kind, size: setMembers(deck, kind, g.name)?.size ?? 0 });
  return {
    format: 'inp',
    nodes: deck.nodes.size,
    elementsByType: deck.elementsByType,
    groups,
    bbox: boxOf(deck.nodes.values()),
  };
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
