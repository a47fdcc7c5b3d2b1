/**
 * Element types of gmsh and Abaqus/CalculiX, reduced to what `mesh.check` compares: shape family,
 * dimension, order and node count. C3D10 and gmsh type 11 are both a 10-node (2nd-order) tet.
 */

/** Shape family of an element. */
export type ElementFamily = 'point' | 'line' | 'tri' | 'quad' | 'tet' | 'hex' | 'wedge' | 'pyramid' | 'other';

/** What `mesh.check` knows about an element type. */
export interface ElementInfo {
  name: string;
  family: ElementFamily;
  dim: number;
  order: number;
  nodes: number;
}

/** gmsh element type number → [name, family, dim, order, nodes]. */
const GMSH: Record<number, [string, ElementFamily, number, number, number]> = {
  1: ['line2', 'line', 1, 1, 2],
  2: ['tri3', 'tri', 2, 1, 3],
  3: ['quad4', 'quad', 2, 1, 4],
  4: ['tet4', 'tet', 3, 1, 4],
  5: ['hex8', 'hex', 3, 1, 8],
  6: ['wedge6', 'wedge', 3, 1, 6],
  7: ['pyramid5', 'pyramid', 3, 1, 5],
  8: ['line3', 'line', 1, 2, 3],
  9: ['tri6', 'tri', 2, 2, 6],
  10: ['quad9', 'quad', 2, 2, 9],
  11: ['tet10', 'tet', 3, 2, 10],
  12: ['hex27', 'hex', 3, 2, 27],
  13: ['wedge18', 'wedge', 3, 2, 18],
  14: ['pyramid14', 'pyramid', 3, 2, 14],
  15: ['point1', 'point', 0, 1, 1],
  16: ['quad8', 'quad', 2, 2, 8],
  17: ['hex20', 'hex', 3, 2, 20],
  18: ['wedge15', 'wedge', 3, 2, 15],
  19: ['pyramid13', 'pyramid', 3, 2, 13],
};

const BY_GMSH_NAME = new Map(
  Object.values(GMSH).map(([n, family, dim, order, nodes]) => [n, { name: n, family, dim, order, nodes }]),
);

/** The name of gmsh element type `t` (`tet10` for 11), or `gmsh<t>` when unknown. */
export function gmshElementType(t: number): string {
  return GMSH[t]?.[0] ?? `gmsh${t}`;
}

/** Abaqus/CalculiX solid and shell names: node count → family, by the leading letters. */
function abaqus(name: string): ElementInfo | undefined {
  const n = name.toUpperCase();
  const m = /^(D?C3D|CPS|CPE|CAX|S|M3D|T3D|B3|DC2D|DCAX)(\d+)/.exec(n);
  if (m === null) return undefined;
  const nodes = Number(m[2]);
  const prefix = m[1]!;
  // T3D2 / T3D3: 2- and 3-node trusses; B31 / B32: 2- and 3-node beams
  if (prefix === 'T3D') return { name: n, family: 'line', dim: 1, order: nodes - 1, nodes };
  if (prefix === 'B3') return { name: n, family: 'line', dim: 1, order: nodes, nodes: nodes + 1 };
  if (prefix === 'C3D' || prefix === 'DC3D') {
    const solid: Record<number, [ElementFamily, number]> = {
      4: ['tet', 1],
      10: ['tet', 2],
      6: ['wedge', 1],
      15: ['wedge', 2],
      8: ['hex', 1],
      20: ['hex', 2],
    };
    const s = solid[nodes];
    return s && { name: n, family: s[0], dim: 3, order: s[1], nodes };
  }
  const planar: Record<number, [ElementFamily, number]> = {
    3: ['tri', 1],
    6: ['tri', 2],
    4: ['quad', 1],
    8: ['quad', 2],
  };
  const s = planar[nodes];
  return s && { name: n, family: s[0], dim: 2, order: s[1], nodes };
}

/** Info of an element type by name (gmsh `tet10` or Abaqus `C3D10`); `other` when unknown. */
export function elementInfo(name: string): ElementInfo {
  return BY_GMSH_NAME.get(name) ?? abaqus(name) ?? { name, family: 'other', dim: 0, order: 0, nodes: 0 };
}

/** ccx's one- and two-node connector elements, which the family table does not name. */
const CONNECTORS: Record<string, number> = {
  SPRING1: 1,
  SPRING2: 2,
  SPRINGA: 2,
  DASHPOTA: 2,
  GAPUNI: 2,
  MASS: 1,
  DCOUP3D: 1,
};

/** Nodes an element of `type` has (`C3D10` → 10, `C3D20R` → 20), or 0 when the type is not known. */
export function elementNodeCount(type: string): number {
  const t = type.toUpperCase();
  return CONNECTORS[t] ?? elementInfo(t).nodes;
}
