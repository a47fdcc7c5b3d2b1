/**
 * What OCCT (compiled to WebAssembly, `replicad-opencascadejs`) says about a B-rep: validity,
 * exact mass properties, topology counts, faces by surface type, bounding box and every cylindrical
 * face. Runs inside the OCCT worker (`occt-worker.ts`); the main thread never loads the wasm.
 */
import type { OpenCascadeInstance, TopoDS_Shape } from 'replicad-opencascadejs';

/** B-rep file kinds OCCT reads here. */
export type BrepKind = 'step' | 'brep';

export type Vec3 = [number, number, number];

/** A cylindrical face: radius, a point on its axis, the unit axis direction, and hole or boss. */
export interface CylinderFace {
  radius: number;
  /** The point of the axis nearest the origin, so equal axes give equal points. */
  axisPoint: Vec3;
  /** Unit axis direction, sign chosen so its largest component is positive. */
  axis: Vec3;
  /** True when the material is outside the cylinder (a hole), false for a boss or shaft. */
  hole: boolean;
  area: number;
}

/** Facts about a B-rep shape, all measured on the exact geometry (no meshing). */
export interface BrepFacts {
  /** TopAbs type of the root shape read, e.g. `SOLID` or `COMPOUND`. */
  rootType: string;
  /** BRepCheck_Analyzer's verdict on the whole shape. */
  valid: boolean;
  solids: number;
  shells: number;
  faces: number;
  edges: number;
  vertices: number;
  volume: number;
  area: number;
  centerOfMass: Vec3;
  bboxMin: Vec3;
  bboxMax: Vec3;
  /** Faces per surface type: plane, cylinder, cone, sphere, torus, bezier, bspline, revolution, extrusion, offset, other. */
  faceTypes: Record<string, number>;
  cylinders: CylinderFace[];
}

/** A mesh of the shape as a binary STL, for comparisons with meshes. */
export interface BrepMesh {
  stl: Uint8Array;
}

/** Raised for a file OCCT cannot read as the kind claimed; the worker reports it as invalid. */
export class BrepReadError extends Error {
  override readonly name = 'BrepReadError';
}

const SURFACE_NAMES: Record<string, string> = {
  GeomAbs_Plane: 'plane',
  GeomAbs_Cylinder: 'cylinder',
  GeomAbs_Cone: 'cone',
  GeomAbs_Sphere: 'sphere',
  GeomAbs_Torus: 'torus',
  GeomAbs_BezierSurface: 'bezier',
  GeomAbs_BSplineSurface: 'bspline',
  GeomAbs_SurfaceOfRevolution: 'revolution',
  GeomAbs_SurfaceOfExtrusion: 'extrusion',
  GeomAbs_OffsetSurface: 'offset',
  GeomAbs_OtherSurface: 'other',
};

/** Reads a STEP or BREP file. Throws `BrepReadError` naming OCCT's complaint. */
export function readBrep(
  oc: OpenCascadeInstance,
  kind: BrepKind,
  bytes: Uint8Array,
  log: string[],
): TopoDS_Shape {
  if (kind === 'brep') {
    const text = Buffer.from(bytes).toString('latin1');
    if (!text.includes('CASCADE Topology'))
      throw new BrepReadError('not an OCCT BREP file (no "CASCADE Topology" header)');
    const shape = oc.BRepToolsWrapper.Read(text);
    if (shape.IsNull()) throw new BrepReadError(`OCCT read no shape from the BREP${tail(log)}`);
    return shape;
  }
  const head = Buffer.from(bytes.subarray(0, 64)).toString('latin1');
  if (!head.trimStart().startsWith('ISO-10303-21'))
    throw new BrepReadError('not a STEP file (does not start with "ISO-10303-21;")');
  const file = '/engiloop-input.step';
  oc.FS.writeFile(file, bytes);
  const reader = new oc.STEPControl_Reader();
  try {
    const status = reader.ReadFile(file);
    if (status !== oc.IFSelect_ReturnStatus.IFSelect_RetDone)
      throw new BrepReadError(`OCCT could not parse the STEP file (${status})${tail(log)}`);
    const progress = new oc.Message_ProgressRange();
    const roots = reader.TransferRoots(progress);
    progress.delete();
    const shape = reader.OneShape();
    if (roots === 0 || shape.IsNull())
      throw new BrepReadError(`the STEP file holds no transferable shape${tail(log)}`);
    return shape;
  } finally {
    reader.delete();
    oc.FS.unlink(file);
  }
}

/** Measures a shape. */
export function brepFacts(oc: OpenCascadeInstance, shape: TopoDS_Shape): BrepFacts {
  const E = oc.TopAbs_ShapeEnum;
  // The explorer visits a shared sub-shape once per parent: count distinct ones (IsSame) instead.
  const count = (type: (typeof E)[keyof typeof E]): number => {
    const buckets = new Map<number, TopoDS_Shape[]>();
    const ex = new oc.TopExp_Explorer(shape, type, E.TopAbs_SHAPE);
    let n = 0;
    for (; ex.More(); ex.Next()) {
      const s = ex.Current();
      const h = oc.ReplicadShapeHasher.HashCode(s, 1 << 30);
      const bucket = buckets.get(h) ?? [];
      if (bucket.some((o) => o.IsSame(s))) continue;
      bucket.push(s);
      buckets.set(h, bucket);
      n++;
    }
    ex.delete();
    return n;
  };
  const analyzer = new oc.BRepCheck_Analyzer(shape, true, false, false);
  const valid = analyzer.IsValid();
  analyzer.delete();

  const vprops = new oc.GProp_GProps();
  oc.BRepGProp.VolumeProperties(shape, vprops, false, false, false);
  const com = vprops.CentreOfMass();
  const volume = vprops.Mass();
  const centerOfMass: Vec3 = [com.X(), com.Y(), com.Z()];
  vprops.delete();
  const sprops = new oc.GProp_GProps();
  oc.BRepGProp.SurfaceProperties(shape, sprops, false, false);
  const area = sprops.Mass();
  sprops.delete();

  const box = new oc.Bnd_Box();
  oc.BRepBndLib.AddOptimal(shape, box, false, false);
  const bmin = box.CornerMin();
  const bmax = box.CornerMax();
  const empty = box.IsVoid();
  const bboxMin: Vec3 = empty ? [0, 0, 0] : [bmin.X(), bmin.Y(), bmin.Z()];
  const bboxMax: Vec3 = empty ? [0, 0, 0] : [bmax.X(), bmax.Y(), bmax.Z()];
  box.delete();

  const faceTypes: Record<string, number> = {};
  const cylinders: CylinderFace[] = [];
  const ex = new oc.TopExp_Explorer(shape, E.TopAbs_FACE, E.TopAbs_SHAPE);
  for (; ex.More(); ex.Next()) {
    const face = oc.TopoDS.Face(ex.Current());
    const surf = new oc.BRepAdaptor_Surface(face, true);
    const type = SURFACE_NAMES[String(surf.GetType())] ?? 'other';
    faceTypes[type] = (faceTypes[type] ?? 0) + 1;
    if (type === 'cylinder') cylinders.push(cylinderOf(oc, face, surf));
    surf.delete();
  }
  ex.delete();

  return {
    rootType: String(shape.ShapeType()).replace(/^TopAbs_/, ''),
    valid,
    solids: count(E.TopAbs_SOLID),
    shells: count(E.TopAbs_SHELL),
    faces: count(E.TopAbs_FACE),
    edges: count(E.TopAbs_EDGE),
    vertices: count(E.TopAbs_VERTEX),
    volume,
    area,
    centerOfMass,
    bboxMin,
    bboxMax,
    faceTypes,
    cylinders,
  };
}

function cylinderOf(
  oc: OpenCascadeInstance,
  face: ReturnType<OpenCascadeInstance['TopoDS']['Face']>,
  surf: InstanceType<OpenCascadeInstance['BRepAdaptor_Surface']>,
): CylinderFace {
  const cyl = surf.Cylinder();
  const pos = cyl.Position();
  const loc = pos.Location();
  const dir = pos.Direction();
  let axis: Vec3 = [dir.X(), dir.Y(), dir.Z()];
  const big = axis.reduce((m, v, i) => (Math.abs(v) > Math.abs(axis[m]!) ? i : m), 0);
  if (axis[big]! < 0) axis = axis.map((v) => -v) as Vec3;
  const p: Vec3 = [loc.X(), loc.Y(), loc.Z()];
  const t = p[0] * axis[0] + p[1] * axis[1] + p[2] * axis[2];
  const axisPoint: Vec3 = [p[0] - t * axis[0], p[1] - t * axis[1], p[2] - t * axis[2]];
  // The cylinder's geometric normal points away from its axis in a right-handed frame; a reversed
  // face (or a left-handed frame, but not both) turns the material outwards: a hole.
  const reversed = face.Orientation() === oc.TopAbs_Orientation.TopAbs_REVERSED;
  const hole = reversed === pos.Direct();
  const props = new oc.GProp_GProps();
  oc.BRepGProp.SurfaceProperties(face, props, false, false);
  const area = props.Mass();
  props.delete();
  return { radius: cyl.Radius(), axisPoint, axis, hole, area };
}

/** Meshes the shape and writes it as a binary STL (for IoU against meshes). */
export function brepMesh(oc: OpenCascadeInstance, shape: TopoDS_Shape, linDeflection: number): BrepMesh {
  const mesher = new oc.BRepMesh_IncrementalMesh(shape, linDeflection, false, 0.3, false);
  mesher.delete();
  const writer = new oc.StlAPI_Writer();
  const file = '/engiloop-mesh.stl';
  try {
    // ASCIIMode() returns a reference in C++; the binding exposes no setter, so ASCII it is.
    const progress = new oc.Message_ProgressRange();
    const ok = writer.Write(shape, file, progress);
    progress.delete();
    if (!ok) throw new BrepReadError('OCCT could not mesh the shape');
    return { stl: oc.FS.readFile(file) as Uint8Array };
  } finally {
    writer.delete();
    try {
      oc.FS.unlink(file);
    } catch {
      // never written
    }
  }
}

function tail(log: string[]): string {
  const last = log
    .map((l) => l.replace(/\*+/g, '').trim())
    .filter((l) => l !== '')
    .slice(-2)
    .join(' ');
  return last === '' ? '' : `: ${last}`;
}
