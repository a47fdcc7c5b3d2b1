/**
 * What the `ifc.model` checks read from an open web-ifc model: every product (type, GlobalId, name,
 * predefined type), spatial containment, aggregation, voids and fills, property-set and quantity
 * values, and (lazily) each element's world bounding box and volume from web-ifc's meshes (metres,
 * Y up, as web-ifc gives them).
 */
import type { IfcAPI } from 'web-ifc';

/** A property or quantity value as read: labels → string, booleans → boolean, measures → number. */
export type IfcValue = string | number | boolean | null;

/** One IfcProduct of the model. */
export interface IfcElement {
  id: number;
  /** Entity type in IFC spelling, e.g. `IfcWall`. */
  type: string;
  globalId: string | undefined;
  name: string | undefined;
  predefinedType: string | undefined;
  objectType: string | undefined;
}

/** Relations and properties of a model, by express id. */
export interface IfcFacts {
  schema: string;
  elements: Map<number, IfcElement>;
  /** Element → the spatial structure element it is contained in (IfcRelContainedInSpatialStructure). */
  containedIn: Map<number, number>;
  /** Part → whole (IfcRelAggregates). */
  aggregatedIn: Map<number, number>;
  /** Opening → the element it voids (IfcRelVoidsElement). */
  voids: Map<number, number>;
  /** Filling element (door, window) → the opening it fills (IfcRelFillsElement). */
  fills: Map<number, number>;
  /** Element → `Pset_Name.Property` (or `Qto_Name.Quantity`) → value. */
  props: Map<number, Map<string, IfcValue>>;
}

/** World-space bounding box (metres, web-ifc's Y-up frame) and enclosed volume of an element. */
export interface IfcGeometryFacts {
  min: [number, number, number];
  max: [number, number, number];
  /** Absolute signed volume of the triangles (m³); meaningful for closed meshes. */
  volume: number;
  triangles: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- web-ifc lines are untyped records
type Line = any;

const str = (v: Line): string | undefined =>
  v === null || v === undefined || v.value === undefined ? undefined : String(v.value);
const ref = (v: Line): number | undefined =>
  v?.type === 5 && typeof v.value === 'number' ? v.value : undefined;
const refs = (v: Line): number[] =>
  Array.isArray(v)
    ? v.map(ref).filter((x): x is number => x !== undefined)
    : [ref(v)].filter((x) => x !== undefined);

/** Reads a property or quantity value. */
export function valueOf(v: Line): IfcValue {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map((x) => String(valueOf(x))).join(',');
  const name = typeof v.name === 'string' ? v.name.toUpperCase() : '';
  if (name === 'IFCBOOLEAN' || name === 'IFCLOGICAL' || v.value === 'T' || v.value === 'F')
    return v.value === 'T' || v.value === true ? true : v.value === 'F' || v.value === false ? false : null;
  if (typeof v.value === 'number') return v.value;
  if (typeof v.value === 'string') return v.value;
  return null;
}

/**
 * Reads products, relations and properties. `tick` is called between entities so a time limit can
 * stop a very large model.
 */
export function readFacts(api: IfcAPI, id: number, tick: () => void = () => undefined): IfcFacts {
  const ids = (typeName: string, inherited = false): number[] => {
    const v = api.GetLineIDsWithType(id, api.GetTypeCodeFromName(typeName), inherited);
    const out: number[] = [];
    for (let i = 0; i < v.size(); i++) out.push(v.get(i));
    return out;
  };
  const line = (e: number): Line => {
    tick();
    return api.GetLine(id, e);
  };
  const facts: IfcFacts = {
    schema: api.GetModelSchema(id),
    elements: new Map(),
    containedIn: new Map(),
    aggregatedIn: new Map(),
    voids: new Map(),
    fills: new Map(),
    props: new Map(),
  };
  for (const e of ids('IFCPRODUCT', true)) {
    const l = line(e);
    facts.elements.set(e, {
      id: e,
      type: api.GetNameFromTypeCode(l.type),
      globalId: str(l.GlobalId),
      name: str(l.Name),
      predefinedType: str(l.PredefinedType),
      objectType: str(l.ObjectType),
    });
  }
  for (const r of ids('IFCRELCONTAINEDINSPATIALSTRUCTURE')) {
    const l = line(r);
    const host = ref(l.RelatingStructure);
    if (host !== undefined) for (const e of refs(l.RelatedElements)) facts.containedIn.set(e, host);
  }
  for (const r of ids('IFCRELAGGREGATES')) {
    const l = line(r);
    const whole = ref(l.RelatingObject);
    if (whole !== undefined) for (const e of refs(l.RelatedObjects)) facts.aggregatedIn.set(e, whole);
  }
  for (const r of ids('IFCRELVOIDSELEMENT')) {
    const l = line(r);
    const host = ref(l.RelatingBuildingElement);
    const opening = ref(l.RelatedOpeningElement);
    if (host !== undefined && opening !== undefined) facts.voids.set(opening, host);
  }
  for (const r of ids('IFCRELFILLSELEMENT')) {
    const l = line(r);
    const opening = ref(l.RelatingOpeningElement);
    const filler = ref(l.RelatedBuildingElement);
    if (opening !== undefined && filler !== undefined) facts.fills.set(filler, opening);
  }
  for (const r of ids('IFCRELDEFINESBYPROPERTIES')) {
    const l = line(r);
    const def = ref(l.RelatingPropertyDefinition);
    if (def === undefined) continue;
    const values = propertyValues(line(def), line);
    for (const e of refs(l.RelatedObjects)) {
      const m = facts.props.get(e) ?? new Map<string, IfcValue>();
      for (const [k, v] of values) m.set(k, v);
      facts.props.set(e, m);
    }
  }
  return facts;
}

/** `Set.Property → value` of a property set or element quantity. */
function propertyValues(def: Line, line: (e: number) => Line): Map<string, IfcValue> {
  const out = new Map<string, IfcValue>();
  const setName = str(def?.Name) ?? '';
  const members = refs(def?.HasProperties ?? def?.Quantities ?? []);
  for (const m of members) {
    const p = line(m);
    const name = str(p?.Name);
    if (name === undefined) continue;
    if ('NominalValue' in p) out.set(`${setName}.${name}`, valueOf(p.NominalValue));
    else {
      const key = Object.keys(p).find((k) => k.endsWith('Value') && k !== 'NominalValue');
      const raw = key === undefined ? null : p[key];
      out.set(`${setName}.${name}`, typeof raw?.value === 'number' ? raw.value : valueOf(raw));
    }
  }
  return out;
}

/**
 * World bounding box and volume of an element's meshes, or `undefined` when web-ifc makes none.
 * Vertices come as 6 floats (position, normal); placements as column-major 4×4 matrices.
 */
export function elementGeometry(api: IfcAPI, id: number, expressId: number): IfcGeometryFacts | undefined {
  const mesh = api.GetFlatMesh(id, expressId);
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  let volume = 0;
  let triangles = 0;
  try {
    for (let g = 0; g < mesh.geometries.size(); g++) {
      const placed = mesh.geometries.get(g);
      const m = placed.flatTransformation;
      const geo = api.GetGeometry(id, placed.geometryExpressID);
      const verts = api.GetVertexArray(geo.GetVertexData(), geo.GetVertexDataSize());
      const index = api.GetIndexArray(geo.GetIndexData(), geo.GetIndexDataSize());
      const world: number[] = [];
      for (let i = 0; i + 5 < verts.length; i += 6) {
        const x = verts[i]!;
        const y = verts[i + 1]!;
        const z = verts[i + 2]!;
        const p = [
          m[0]! * x + m[4]! * y + m[8]! * z + m[12]!,
          m[1]! * x + m[5]! * y + m[9]! * z + m[13]!,
          m[2]! * x + m[6]! * y + m[10]! * z + m[14]!,
        ];
        for (let k = 0; k < 3; k++) {
          min[k] = Math.min(min[k]!, p[k]!);
          max[k] = Math.max(max[k]!, p[k]!);
        }
        world.push(...p);
      }
      for (let t = 0; t + 2 < index.length; t += 3) {
        const [a, b, c] = [index[t]! * 3, index[t + 1]! * 3, index[t + 2]! * 3];
        volume +=
          (world[a]! * (world[b + 1]! * world[c + 2]! - world[b + 2]! * world[c + 1]!) -
            world[a + 1]! * (world[b]! * world[c + 2]! - world[b + 2]! * world[c]!) +
            world[a + 2]! * (world[b]! * world[c + 1]! - world[b + 1]! * world[c]!)) /
          6;
        triangles += 1;
      }
      (geo as { delete?: () => void }).delete?.();
    }
  } finally {
    (mesh as { delete?: () => void }).delete?.();
  }
  return triangles === 0 ? undefined : { min, max, volume: Math.abs(volume), triangles };
}
