/**
 * The model a CalculiX deck describes, as `parseDeck` reads it: nodes, elements, sets, materials,
 * sections, constraints, loads and steps, each with the file and line it came from; and the
 * queries the checks ask of it (the members of a set, the nodes a target names).
 */

/** Where a keyword or data line is: `beam.inp line 2017`. */
export interface Loc {
  file: string;
  line: number;
}
/** `beam.inp line 2017` (`line 2017` when the file has no name). */
export const where = (l: Loc): string => (l.file === '' ? `line ${l.line}` : `${l.file} line ${l.line}`);

/** A node or element set as written: member ids, names of nested sets, where it was first defined. */
export interface DeckSet {
  name: string;
  ids: number[];
  refs: string[];
  loc: Loc;
}

/** A `*BOUNDARY` data line: DOFs `first`…`last` of a node or node set, to `magnitude`. */
export interface Constraint {
  target: string;
  first: number;
  last: number;
  magnitude: number;
  /** 1-based step it is given in; `null` in the model data (before the first `*STEP`). */
  step: number | null;
  loc: Loc;
}

/** A load data line (`*CLOAD`, `*DLOAD`, `*DSLOAD`, `*TEMPERATURE`, heat fluxes…). */
export interface Load {
  /** The keyword, as ccx names it without blanks: `CLOAD`, `DLOAD`, … */
  keyword: string;
  target: string;
  /** `*CLOAD`: the DOF loaded. */
  dof?: number;
  /** `*DLOAD`/`*DSLOAD`: the load type (`P`, `GRAV`, `CENTRIF`, `P3`, …). */
  type?: string;
  magnitude: number;
  step: number | null;
  loc: Loc;
}

/** A `*STEP` … `*END STEP` block. */
export interface Step {
  /** 1-based. */
  index: number;
  loc: Loc;
  /** First procedure keyword inside the step (`STATIC`, `FREQUENCY`, `HEATTRANSFER`, …). */
  procedure: string | null;
  ended: boolean;
}

/** A `*MATERIAL` and the property keywords that follow it (`ELASTIC`, `DENSITY`, …). */
export interface Material {
  name: string;
  props: Set<string>;
  loc: Loc;
}

/** A section (or spring/mass/gap) assigning a property to an element set. */
export interface Section {
  /** The keyword as written, upper case: `SOLID SECTION`. */
  keyword: string;
  elset: string;
  material?: string;
  loc: Loc;
}

/** A set or surface named by an output request or a section; checked to exist. */
export interface NamedRef {
  kind: 'nset' | 'elset' | 'surface';
  name: string;
  by: string;
  loc: Loc;
}

/** A parsed deck. */
export interface Deck {
  nodes: Map<number, [number, number, number]>;
  elements: Map<number, { type: string; nodes: number[] }>;
  elementsByType: Record<string, number>;
  /** By upper-case name. */
  nsets: Map<string, DeckSet>;
  elsets: Map<string, DeckSet>;
  surfaces: Map<string, { name: string; loc: Loc }>;
  materials: Map<string, Material>;
  sections: Section[];
  boundaries: Constraint[];
  loads: Load[];
  steps: Step[];
  refs: NamedRef[];
  /** Every keyword used, without blanks (`SOLIDSECTION`, `EQUATION`, …). */
  keywords: Set<string>;
  /** Defects of the mesh (element node counts, undefined nodes), each naming its element. */
  meshProblems: string[];
  /** Other defects of meaning found while reading, each naming its place. */
  problems: string[];
}

/**
 * The members of a node or element set, nested sets included; `undefined` when the set does not
 * exist. Names of nested sets that do not exist are reported through `missing`.
 */
export function setMembers(
  deck: Deck,
  kind: 'nset' | 'elset',
  name: string,
  missing?: (name: string) => void,
): Set<number> | undefined {
  const map = kind === 'nset' ? deck.nsets : deck.elsets;
  if (!map.has(name.toUpperCase())) return undefined;
  const out = new Set<number>();
  const seen = new Set<string>();
  const walk = (n: string): void => {
    const key = n.toUpperCase();
    if (seen.has(key)) return;
    seen.add(key);
    const s = map.get(key);
    if (s === undefined) return missing?.(n);
    for (const id of s.ids) out.add(id);
    for (const r of s.refs) walk(r);
  };
  walk(name);
  return out;
}

/**
 * The nodes a `*BOUNDARY`/`*CLOAD` target names: a node number or a node set. `undefined` when the
 * set or node does not exist.
 */
export function targetNodes(deck: Deck, target: string): number[] | undefined {
  const id = Number(target);
  if (Number.isInteger(id) && target !== '') return deck.nodes.has(id) ? [id] : undefined;
  const s = setMembers(deck, 'nset', target);
  return s === undefined ? undefined : [...s];
}

/** Bounding box of points; zeros when there are none. */
export function boxOf(points: Iterable<readonly [number, number, number]>): {
  min: [number, number, number];
  max: [number, number, number];
} {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (const p of points)
    for (let i = 0; i < 3; i++) {
      min[i] = Math.min(min[i]!, p[i]!);
      max[i] = Math.max(max[i]!, p[i]!);
    }
  return min[0] === Infinity ? { min: [0, 0, 0], max: [0, 0, 0] } : { min, max };
}
