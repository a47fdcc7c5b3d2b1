/**
 * Evaluating `ifc.model` params against the facts read from a model: each requirement becomes a
 * check result in one part (semantic: types, counts, names, properties, identity; topological:
 * containment, aggregation, openings and fillings; geometric: bounding boxes, volumes, unchanged
 * geometry), with a detail a person can read.
 */
import { fmt, pct } from '../judge-value.js';
import type { IfcElement, IfcFacts, IfcGeometryFacts, IfcValue } from './ifc-facts.js';
import { quantityClaims } from './ifc-quantities.js';
import type {
  IfcCount,
  IfcElementCheck,
  IfcModelParams,
  IfcPart,
  IfcSelect,
  IfcUntouched,
} from './ifc-params.js';

/** One requirement checked. */
export interface IfcCheckResult {
  part: IfcPart;
  passed: boolean;
  /** What was checked and what was found, e.g. `L1-Door storey: 'Level 1', expected 'Level 0'`. */
  detail: string;
}

/** A model as the checks see it: facts, and geometry computed on demand. */
export interface IfcModelView {
  facts: IfcFacts;
  geometry(expressId: number): IfcGeometryFacts | undefined;
}

const SPATIAL =
  /^ifc(site|building|buildingstorey|space|opening(standardcase)?element|facility|facilitypart|bridge|road|railway)$/i;
const label = (e: IfcElement): string => `${e.type} ${e.name === undefined ? `#${e.id}` : `'${e.name}'`}`;
const q = (s: unknown): string => (typeof s === 'string' ? `'${s}'` : String(s));
const n3 = (v: readonly number[]): string => `[${v.map((x) => Number(x.toFixed(3))).join(', ')}]`;

/**
 * The storey an element is in: the storey named by its IfcRelContainedInSpatialStructure (a space
 * inside a storey counts), or that of the whole it is aggregated into. A door that only fills an
 * opening is not in a storey: containment must be stated.
 */
function storeyOf(f: IfcFacts, id: number): IfcElement | undefined {
  const seen = new Set<number>();
  let cur: number | undefined = id;
  while (cur !== undefined && !seen.has(cur)) {
    seen.add(cur);
    const el = f.elements.get(cur);
    if (cur !== id && el !== undefined && /^ifcbuildingstorey$/i.test(el.type)) return el;
    cur = f.containedIn.get(cur) ?? f.aggregatedIn.get(cur);
  }
  return undefined;
}

/** Elements matching a selection. */
function selectElements(f: IfcFacts, s: IfcSelect): IfcElement[] {
  const re = s.name_pattern === undefined ? undefined : new RegExp(s.name_pattern);
  return [...f.elements.values()].filter(
    (e) =>
      e.type.toLowerCase() === s.type.toLowerCase() &&
      (s.name === undefined || e.name === s.name) &&
      (re === undefined || (e.name !== undefined && re.test(e.name))) &&
      (s.global_id === undefined || e.globalId === s.global_id) &&
      (s.storey === undefined || storeyOf(f, e.id)?.name === s.storey),
  );
}

function countOk(n: number, c: IfcCount): boolean {
  return (
    (c.equals === undefined || n === c.equals) &&
    (c.min === undefined || n >= c.min) &&
    (c.max === undefined || n <= c.max)
  );
}
function countText(c: IfcCount): string {
  if (c.equals !== undefined) return `exactly ${c.equals}`;
  if (c.max === undefined) return `at least ${c.min}`;
  return c.min === undefined ? `at most ${c.max}` : `${c.min}–${c.max}`;
}
function describeSelect(s: IfcSelect): string {
  const bits = [
    s.name && `name '${s.name}'`,
    s.name_pattern && `name ~ /${s.name_pattern}/`,
    s.global_id && `GlobalId ${s.global_id}`,
    s.storey && `in '${s.storey}'`,
  ].filter(Boolean);
  return `${s.type}${bits.length > 0 ? ` (${bits.join(', ')})` : ''}`;
}

function sameValue(got: IfcValue | undefined, want: string | number | boolean, tol: number): boolean {
  if (typeof want === 'number' && typeof got === 'number')
    return Math.abs(got - want) <= tol * Math.max(1, Math.abs(want));
  return got === want;
}

/** Runs every check of `p` on `model` (and `reference` for `untouched`). */
export function runIfcChecks(
  p: IfcModelParams,
  model: IfcModelView,
  reference?: IfcModelView,
): IfcCheckResult[] {
  const out: IfcCheckResult[] = [];
  for (const c of p.counts) {
    const n = selectElements(model.facts, {
      type: c.type,
      ...(c.storey === undefined ? {} : { storey: c.storey }),
    }).length;
    out.push({
      part: 'semantic',
      passed: countOk(n, c),
      detail: `${n} × ${c.type}${c.storey ? ` in '${c.storey}'` : ''}, expected ${countText(c)}`,
    });
  }
  for (const c of p.elements) out.push(...elementChecks(c, model));
  if (p.untouched !== undefined && reference !== undefined)
    out.push(...untouchedChecks(p.untouched, model, reference));
  return out;
}

/** What one requirement found on one element: the measured value, and why it fails (if it does). */
interface Finding {
  /** The measured value as text, e.g. `'EI90'`, `[0.9, 2.1, 0.05] m`. */
  got: string;
  /** Null when the element meets the requirement. */
  bad: string | null;
}

function elementChecks(c: IfcElementCheck, model: IfcModelView): IfcCheckResult[] {
  const f = model.facts;
  const sel = selectElements(f, c.select);
  const what = describeSelect(c.select);
  const out: IfcCheckResult[] = [
    {
      part: 'semantic',
      passed: countOk(sel.length, c.count),
      detail: `${sel.length} × ${what} found, expected ${countText(c.count)}`,
    },
  ];
  /**
   * One result per requirement: passes when every selected element meets it. A passing result
   * reports what was measured (the value, or each element's value when they differ).
   */
  const each = (part: IfcPart, name: string, test: (e: IfcElement) => Finding): void => {
    if (sel.length === 0) {
      out.push({ part, passed: false, detail: `${name}: no ${what} to check` });
      return;
    }
    const found = sel.map((e) => ({ e, ...test(e) }));
    const bad = found.filter((x) => x.bad !== null).map((x) => x.bad!);
    const values = [...new Set(found.map((x) => x.got))];
    const measured =
      values.length === 1
        ? `${values[0]}${sel.length > 1 ? ` on all ${sel.length}` : ''}`
        : `${found
            .slice(0, 4)
            .map((x) => `${label(x.e)} ${x.got}`)
            .join(', ')}${found.length > 4 ? ', …' : ''}`;
    out.push({
      part,
      passed: bad.length === 0,
      detail: bad.length === 0 ? `${what} ${name}: ${measured}` : bad.slice(0, 3).join('; '),
    });
  };
  if (c.name !== undefined)
    each('semantic', 'name', (e) => ({
      got: q(e.name),
      bad: e.name === c.name ? null : `${label(e)} name ${q(e.name)}, expected '${c.name}'`,
    }));
  if (c.predefined_type !== undefined)
    each('semantic', 'PredefinedType', (e) => ({
      got: q(e.predefinedType),
      bad:
        e.predefinedType?.toUpperCase() === c.predefined_type?.toUpperCase()
          ? null
          : `${label(e)} PredefinedType ${q(e.predefinedType)}, expected '${c.predefined_type}'`,
    }));
  if (c.object_type !== undefined)
    each('semantic', 'ObjectType', (e) => ({
      got: q(e.objectType),
      bad:
        e.objectType === c.object_type
          ? null
          : `${label(e)} ObjectType ${q(e.objectType)}, expected '${c.object_type}'`,
    }));
  for (const [key, want] of Object.entries(c.properties ?? {}))
    each('semantic', key, (e) => {
      const got = f.props.get(e.id)?.get(key);
      const said = got === undefined ? 'missing' : q(got);
      return {
        got: said,
        bad: sameValue(got, want, c.property_tol)
          ? null
          : `${label(e)} ${key} = ${said}, expected ${q(want)}`,
      };
    });
  if (c.storey !== undefined)
    each('topological', 'storey', (e) => {
      const s = storeyOf(f, e.id);
      return {
        got: s === undefined ? 'in no storey' : `in '${s.name}'`,
        bad:
          s?.name === c.storey
            ? null
            : `${label(e)} is ${s === undefined ? 'in no storey' : `contained in '${s.name}'`}, expected '${c.storey}'`,
      };
    });
  if (c.aggregated_in !== undefined)
    each('topological', 'aggregation', (e) => {
      const w = f.aggregatedIn.get(e.id);
      const name = w === undefined ? undefined : f.elements.get(w)?.name;
      return {
        got: name === undefined ? 'part of nothing' : `part of '${name}'`,
        bad:
          name === c.aggregated_in
            ? null
            : `${label(e)} is ${name === undefined ? 'not part of anything' : `part of '${name}'`}, expected part of '${c.aggregated_in}'`,
      };
    });
  if (c.fills_opening_in !== undefined)
    each('topological', 'opening', (e) => {
      const opening = f.fills.get(e.id);
      if (opening === undefined)
        return { got: 'fills no opening', bad: `${label(e)} fills no opening (no IfcRelFillsElement)` };
      const host = f.voids.get(opening);
      if (host === undefined)
        return {
          got: `fills #${opening}`,
          bad: `${label(e)} fills opening #${opening}, which voids no element (no IfcRelVoidsElement)`,
        };
      const hostName = f.elements.get(host)?.name;
      return {
        got: `fills opening #${opening} in '${hostName}'`,
        bad:
          hostName === c.fills_opening_in
            ? null
            : `${label(e)} fills an opening in '${hostName}', expected in '${c.fills_opening_in}'`,
      };
    });
  const noMesh = (e: IfcElement): Finding => ({
    got: 'no geometry',
    bad: `${label(e)} has no geometry web-ifc can mesh`,
  });
  const geoKeys = (['bbox_size', 'bbox_min', 'bbox_max'] as const).filter((k) => c[k] !== undefined);
  for (const k of geoKeys)
    each('geometric', k, (e) => {
      const g = model.geometry(e.id);
      if (g === undefined) return noMesh(e);
      const got = k === 'bbox_min' ? g.min : k === 'bbox_max' ? g.max : g.max.map((x, i) => x - g.min[i]!);
      const want = c[k]!;
      const ok = got.every((x, i) => Math.abs(x - want[i]!) <= c.length_tol);
      return {
        got: `${n3(got)} m`,
        bad: ok ? null : `${label(e)} ${k} ${n3(got)} m, expected ${n3(want)} ± ${c.length_tol} m`,
      };
    });
  if (c.volume !== undefined)
    each('geometric', 'volume', (e) => {
      const g = model.geometry(e.id);
      if (g === undefined) return noMesh(e);
      const ok = Math.abs(g.volume - c.volume!) <= c.volume_tol * Math.max(c.volume!, 1e-9);
      return {
        got: `${fmt(g.volume)} m³`,
        bad: ok
          ? null
          : `${label(e)} volume ${fmt(g.volume)} m³, expected ${c.volume} ± ${pct(c.volume_tol)}`,
      };
    });
  if (c.quantities_match_geometry)
    each('geometric', 'quantities vs geometry', (e) => {
      const g = model.geometry(e.id);
      if (g === undefined) return noMesh(e);
      const qs = quantityClaims(f, e, g, c);
      if (qs.length === 0)
        return {
          got: 'no base quantity to compare',
          bad: `${label(e)} has no base quantity its geometry could confirm (Length, Width, Height, Depth, GrossArea, NetArea, GrossVolume, NetVolume)`,
        };
      const wrong = qs.filter((x) => !x.ok);
      return {
        got: qs.map((x) => `${x.key} = ${fmt(x.claimed)} ${x.unit} (geometry ${x.shows})`).join(', '),
        bad:
          wrong.length === 0
            ? null
            : wrong
                .map(
                  (x) =>
                    `${label(e)} claims ${x.key} = ${fmt(x.claimed)} ${x.unit} but its geometry ${x.shows}`,
                )
                .join('; '),
      };
    });
  return out;
}

function untouchedChecks(u: IfcUntouched, model: IfcModelView, ref: IfcModelView): IfcCheckResult[] {
  const types = u.types?.map((t) => t.toLowerCase());
  const keep = [...ref.facts.elements.values()].filter(
    (e) =>
      (types === undefined ? !SPATIAL.test(e.type) : types.includes(e.type.toLowerCase())) &&
      !u.except.includes(e.name ?? '') &&
      !u.except.includes(e.globalId ?? ''),
  );
  const byGuid = new Map([...model.facts.elements.values()].map((e) => [e.globalId, e]));
  const ident: string[] = [];
  const geo: string[] = [];
  for (const r of keep) {
    const d = byGuid.get(r.globalId);
    if (d === undefined) {
      ident.push(`${label(r)} GlobalId ${r.globalId} is gone`);
      continue;
    }
    if (d.type !== r.type || d.name !== r.name) ident.push(`${label(r)} (${r.globalId}) is now ${label(d)}`);
    if (!u.geometry) continue;
    const [a, b] = [ref.geometry(r.id), model.geometry(d.id)];
    if (a === undefined || b === undefined) {
      if (a !== b) geo.push(`${label(r)} ${a === undefined ? 'gained' : 'lost'} its geometry`);
      continue;
    }
    const moved = [...a.min, ...a.max]
      .map((x, i) => Math.abs(x - [...b.min, ...b.max][i]!))
      .reduce((m, x) => Math.max(m, x), 0);
    const dv = Math.abs(a.volume - b.volume) / Math.max(a.volume, 1e-9);
    if (moved > u.length_tol || dv > u.volume_tol)
      geo.push(
        `${label(r)} geometry changed: bbox moved ${moved.toFixed(4)} m, volume ${a.volume.toFixed(4)} → ${b.volume.toFixed(4)} m³`,
      );
  }
  const out: IfcCheckResult[] = [
    {
      part: 'semantic',
      passed: ident.length === 0,
      detail:
        ident.length === 0
          ? `${keep.length} reference elements keep GlobalId, type and name`
          : ident.slice(0, 3).join('; '),
    },
  ];
  if (u.geometry)
    out.push({
      part: 'geometric',
      passed: geo.length === 0,
      detail:
        geo.length === 0
          ? `${keep.length} reference elements keep their geometry (± ${u.length_tol} m)`
          : geo.slice(0, 3).join('; '),
    });
  return out;
}
