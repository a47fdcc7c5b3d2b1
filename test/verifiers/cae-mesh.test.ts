/**
 * `mesh.check`: meshes written by the real gmsh (msh 4.1, msh 2.2 and Abaqus .inp) in a tool
 * container, read back for counts, element family/order, named groups and extent; corrupt,
 * truncated, binary and wrong-format files fail with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, makeWithTool, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const geo = (order: number, size: number, groups = true) => `SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 60, 40, 5};
Cylinder(2) = {40, 20, -1, 0, 0, 7, 5};
BooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
Physical Volume("solid") = {3};
Physical Surface("fixed") = Surface In BoundingBox{-0.1, -0.1, -0.1, 0.1, 40.1, 5.1};
${groups ? 'Physical Surface("load") = Surface In BoundingBox{34.9, 14.9, -0.1, 45.1, 25.1, 5.1};' : ''}
Mesh.CharacteristicLengthMax = ${size};
Mesh.ElementOrder = ${order};
Mesh.SaveGroupsOfNodes = 1;
`;

const kit = toolKit('verifiers-cae-mesh');
let dir: { path: string } & AsyncDisposable;
const files: Record<string, Buffer | string> = {};

beforeAll(async () => {
  dir = await tempDir('cae-mesh');
  const make = (cmd: string, g: string, out: string) => makeWithTool(kit.runTool, cmd, { 'b.geo': g }, out);
  files['ref.msh'] = await make('gmsh b.geo -3 -o ref.msh', geo(2, 2.5), 'ref.msh');
  files['v2.msh'] = await make('gmsh b.geo -3 -format msh2 -o v2.msh', geo(2, 2.5), 'v2.msh');
  files['ref.inp'] = await make('gmsh b.geo -3 -format inp -o ref.inp', geo(2, 2.5), 'ref.inp');
  files['linear.msh'] = await make('gmsh b.geo -3 -o linear.msh', geo(1, 2.5), 'linear.msh');
  files['coarse.msh'] = await make('gmsh b.geo -3 -o coarse.msh', geo(2, 10), 'coarse.msh');
  files['nogroup.msh'] = await make('gmsh b.geo -3 -o nogroup.msh', geo(2, 2.5, false), 'nogroup.msh');
  files['binary.msh'] = await make('gmsh b.geo -3 -bin -o binary.msh', geo(2, 10), 'binary.msh');
  const text = (files['ref.msh'] as Buffer).toString('latin1');
  files['truncated.msh'] = text.slice(0, Math.floor(text.length * 0.6));
  files['truncated-elements.msh'] = text.slice(0, Math.floor(text.length * 0.9));
  // the first 10-node tet of the gmsh file, one node short, and on a node $Nodes does not define
  const tet = /^\$Elements[\s\S]*?^3 \d+ 11 \d+ *\n(\d+(?: \d+){10})/m.exec(text)!;
  const at = tet.index + tet[0].length - tet[1]!.length;
  files['short.msh'] = text.slice(0, at) + tet[1]!.replace(/ \d+$/, '') + text.slice(at + tet[1]!.length);
  files['undefined-node.msh'] =
    text.slice(0, at) + tet[1]!.replace(/ \d+$/, ' 999999') + text.slice(at + tet[1]!.length);
  const inp = (files['ref.inp'] as Buffer).toString('latin1');
  const inEl = inp.indexOf(', ', inp.indexOf('\n', inp.indexOf('*ELEMENT, type=C3D10') + 4000)) + 2;
  files['truncated.inp'] = inp.slice(0, inEl);
  files['spare.inp'] = `${inp}*NSET, NSET=spare\n`;
  files['garbage.msh'] = '$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\nnot numbers here\n';
  files['notmesh.msh'] = 'solid x\nfacet normal 0 0 1\n';
  await writeFiles(dir.path, files);
}, 120_000);
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

const check = (deliverable: string, params: Record<string, unknown>): Promise<Verdict> =>
  verifyCriterion(contextFor(kit, dir.path), {
    id: 'm',
    verifier: 'mesh.check',
    deliverable,
    role: 'check',
    params,
  });
const FULL = {
  dimension: 3,
  family: 'tet',
  order: 2,
  elements: { min: 2000, max: 20000 },
  groups: ['solid', 'fixed', 'load'],
  bbox: { min: [0, 0, 0], max: [60, 40, 5] },
};

describe('mesh.check on gmsh meshes', () => {
  it('passes the reference msh 4.1: 10-node tets, count in range, groups, extent', async () => {
    const v = await check('ref.msh', FULL);
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    expect(v.measured).toMatchObject({ format: 'msh4', families: ['tet'], orders: [2] });
    expect(v.reason).toMatch(/group "load" physical dim 2/);
  });
  it('passes the same mesh as msh 2.2 and as an Abaqus .inp (C3D10, NSET/ELSET groups)', async () => {
    const v2 = await check('v2.msh', FULL);
    expect(v2, v2.reason).toMatchObject({ passed: true, measured: { format: 'msh2' } });
    const inp = await check('ref.inp', FULL);
    expect(inp, inp.reason).toMatchObject({ passed: true, measured: { format: 'inp' } });
    expect((inp.measured as { elementsByType: Record<string, number> }).elementsByType).toHaveProperty(
      'C3D10',
    );
  });
  it('fails first-order tets on order, a coarse mesh on count, a missing group by name', async () => {
    expect((await check('linear.msh', { order: 2 })).reason).toMatch(/FAILED element order 1 \(want 2\)/);
    expect((await check('coarse.msh', { elements: { min: 2000 } })).reason).toMatch(
      /3-D elements \d+ outside \[2000/,
    );
    const g = await check('nogroup.msh', { groups: ['solid', 'load'] });
    expect(g).toMatchObject({ passed: false, score: 0 });
    expect(g.reason).toMatch(/group "load" missing/);
  });
  it('fails binary, truncated, malformed, wrong-format, empty and missing files with the reason', async () => {
    expect((await check('binary.msh', FULL)).reason).toMatch(/binary \.msh is not supported/);
    expect((await check('truncated.msh', FULL)).reason).toMatch(
      /truncated: the file ends at line \d+ inside \$(Nodes|Elements) without \$End(Nodes|Elements)/,
    );
    expect((await check('truncated-elements.msh', FULL)).reason).toMatch(
      /truncated: the file ends at line \d+ inside \$Elements without \$EndElements \(last line "/,
    );
    expect((await check('truncated.inp', FULL)).reason).toMatch(
      /truncated: the file ends inside element \d+ \(C3D10, line \d+\) has \d of its 10 nodes/,
    );
    expect((await check('garbage.msh', FULL)).reason).toMatch(/expected 4\+ numbers|not/);
    expect((await check('notmesh.msh', FULL)).reason).toMatch(/not a mesh/);
    expect((await check('none.msh', FULL)).reason).toMatch(/is missing/);
  });
  it('names an element short of nodes, an element on an undefined node and an empty group', async () => {
    expect((await check('short.msh', FULL)).reason).toMatch(
      /element \d+ \(tet10\) has 9 nodes, the type has 10/,
    );
    expect((await check('undefined-node.msh', FULL)).reason).toMatch(
      /element \d+ \(tet10\) uses node 999999, which \$Nodes does not define/,
    );
    const g = await check('spare.inp', { groups: ['fixed', 'spare'] });
    expect(g).toMatchObject({ passed: false });
    expect(g.reason).toMatch(/FAILED group "spare" nset is empty/);
  });
  it('rejects bad params', async () => {
    expect((await check('ref.msh', { elements: {} })).reason).toMatch(
      /invalid params.*give min, max or both/,
    );
  });
});
