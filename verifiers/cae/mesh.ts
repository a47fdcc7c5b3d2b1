/**
 * `mesh.check`: reopens a delivered mesh (gmsh `.msh` 4.1 / 2.2 ASCII, or Abaqus/CalculiX `.inp`)
 * and checks what the task asks: node and element counts in ranges, the element family and order of
 * the elements of the mesh's dimension (C3D10 = tet10 = 2nd-order tets), named groups (physical
 * groups, NSETs, ELSETs) present and non-empty, and the bounding box. Every check named in params
 * must hold; the reason lists each one.
 */
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { vec } from '../judge-value.js';
import type { Verdict } from '../types.js';
import type { ElementFamily } from './elements.js';
import { elementsOfDim, meshDimension, parseMesh, type MeshSummary } from './mesh-parse.js';

const range = z
  .object({ min: z.number().int().nonnegative().optional(), max: z.number().int().positive().optional() })
  .refine((r) => r.min !== undefined || r.max !== undefined, 'give min, max or both');
const vec3 = z.tuple([z.number(), z.number(), z.number()]);

/** Params of `mesh.check`. Every check given must hold. */
const MeshCheckParams = z.object({
  /** Node count range (inclusive). */
  nodes: range.optional(),
  /** Range of the count of elements of the mesh's dimension (tets/hexes in 3-D, not boundary faces). */
  elements: range.optional(),
  /** Dimension whose elements are counted and typed. Default: the highest present. */
  dimension: z.number().int().min(1).max(3).optional(),
  /** Element order every element of that dimension must have (1 linear, 2 quadratic). */
  order: z.number().int().min(1).max(2).optional(),
  /** Shape family every element of that dimension must have. */
  family: z.enum(['tri', 'quad', 'tet', 'hex', 'wedge', 'pyramid']).optional(),
  /** Names of groups that must exist and be non-empty (physical groups, NSET or ELSET; case-insensitive). */
  groups: z.array(z.string().min(1)).default([]),
  /** Expected bounding box of the nodes, with an absolute tolerance per coordinate. */
  bbox: z.object({ min: vec3, max: vec3, abs_tol: z.number().nonnegative().default(0.01) }).optional(),
  /** Time limit of the parse, in seconds. */
  parse_timeout_sec: z.number().positive().default(20),
});
export type MeshCheckParams = z.infer<typeof MeshCheckParams>;

/** The `mesh.check` verifier. */
export const meshCheck = defineVerifier({
  name: 'mesh.check',
  description:
    'Reopens a gmsh .msh (v4/v2 ASCII) or Abaqus .inp mesh: counts, element family/order, named groups, bbox; names truncated files, short elements and undefined nodes',
  params: MeshCheckParams,
  judge({ params: p, file }): Verdict {
    // a corrupt or truncated file throws ArtifactInvalidError: defineVerifier makes it the verdict
    const m = parseMesh(file.bytes.toString('latin1'), p.parse_timeout_sec * 1000);
    return judge(file.rel, p, m);
  },
});

interface Check {
  ok: boolean;
  text: string;
}

function judge(file: string, p: MeshCheckParams, m: MeshSummary): Verdict {
  const dim = p.dimension ?? meshDimension(m);
  const els = elementsOfDim(m, dim);
  const count = els.reduce((a, e) => a + e.count, 0);
  const families = [...new Set(els.map((e) => e.info.family))];
  const orders = [...new Set(els.map((e) => e.info.order))];
  const checks: Check[] = [];
  const inRange = (
    what: string,
    v: number,
    r: { min?: number | undefined; max?: number | undefined },
  ): void => {
    const ok = (r.min === undefined || v >= r.min) && (r.max === undefined || v <= r.max);
    checks.push({ ok, text: `${what} ${v} ${ok ? 'in' : 'outside'} [${r.min ?? '−∞'}, ${r.max ?? '∞'}]` });
  };
  if (p.nodes) inRange('nodes', m.nodes, p.nodes);
  if (p.elements) inRange(`${dim}-D elements`, count, p.elements);
  if (p.order !== undefined) {
    const ok = count > 0 && orders.every((o) => o === p.order);
    checks.push({ ok, text: `element order ${orders.join('/') || 'none'} (want ${p.order})` });
  }
  if (p.family !== undefined) {
    const ok = count > 0 && families.every((f: ElementFamily) => f === p.family);
    checks.push({ ok, text: `element family ${families.join('/') || 'none'} (want ${p.family})` });
  }
  for (const g of p.groups) {
    const found = m.groups.filter((x) => x.name.toLowerCase() === g.toLowerCase());
    const size = found.reduce((a, x) => a + x.size, 0);
    checks.push({
      ok: found.length > 0 && size > 0,
      text:
        found.length === 0
          ? `group "${g}" missing`
          : `group "${g}" ${found.map((x) => `${x.kind}${x.dim === undefined ? '' : ` dim ${x.dim}`}`).join('+')} ${size === 0 ? 'is empty' : `with ${size} members`}`,
    });
  }
  if (p.bbox) {
    const off = [
      ...p.bbox.min.map((v, i) => Math.abs(m.bbox.min[i]! - v)),
      ...p.bbox.max.map((v, i) => Math.abs(m.bbox.max[i]! - v)),
    ];
    const ok = off.every((d) => d <= p.bbox!.abs_tol);
    checks.push({
      ok,
      text: `bbox ${vec(m.bbox.min)}–${vec(m.bbox.max)} (want ${vec(p.bbox.min)}–${vec(p.bbox.max)} ±${p.bbox.abs_tol})`,
    });
  }
  const failed = checks.filter((c) => !c.ok);
  const passed = failed.length === 0;
  const byType = Object.entries(m.elementsByType)
    .map(([t, n]) => `${n} ${t}`)
    .join(', ');
  return {
    passed,
    score: passed ? 1 : 0,
    measured: {
      format: m.format,
      nodes: m.nodes,
      elements: count,
      dimension: dim,
      families,
      orders,
      elementsByType: m.elementsByType,
      groups: m.groups.map((g) => ({ name: g.name, kind: g.kind, size: g.size })),
      bbox: m.bbox,
    },
    expected: {
      ...(p.nodes ? { nodes: p.nodes } : {}),
      ...(p.elements ? { elements: p.elements } : {}),
      ...(p.order !== undefined ? { order: p.order } : {}),
      ...(p.family !== undefined ? { family: p.family } : {}),
      ...(p.groups.length > 0 ? { groups: p.groups } : {}),
      ...(p.bbox ? { bbox: { min: p.bbox.min, max: p.bbox.max } } : {}),
    },
    tolerance: p.bbox
      ? { bbox_abs: p.bbox.abs_tol, ranges: 'inclusive' }
      : 'inclusive ranges, exact order/family',
    reason:
      `${file} (${m.format}, ${m.nodes} nodes; ${byType}): ` +
      (checks.length === 0
        ? 'reads as a mesh (no checks asked)'
        : passed
          ? checks.map((c) => c.text).join('; ')
          : `FAILED ${failed.map((c) => c.text).join('; ')}`),
  };
}
