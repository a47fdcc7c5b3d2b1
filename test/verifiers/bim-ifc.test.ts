/**
 * `ifc.model`: IFC models edited by the BIM tasks' real python3 scripts in a cli sandbox (reference,
 * alternative and defect solutions), plus wrong values, corrupt, truncated, empty and wrong-format
 * files, all reopened with web-ifc in-process.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { verifyAll, verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { verifierRules } from '../../verifiers/index.js';
import { IfcModelParams } from '../../verifiers/bim/index.js';
import { playTask } from '../fixtures/eda/play-task.js';
import { tempDir, toolKit } from '../helpers/artifacts.js';

const STARTER = path.resolve('tasks/starter');
const FIXTURE = path.resolve('test/fixtures/bim/office.ifc');
const kit = toolKit('verifiers-bim-ifc');
let dir: { path: string } & AsyncDisposable;
const tasks: Record<string, LoadedTask> = {};

/** Plays a task solution into `<dir>/<label>/` and returns that folder. */
async function play(id: string, label: string, steps?: LoadedTask['task']['reference']): Promise<string> {
  const t = tasks[id]!;
  const out = path.join(dir.path, label);
  await playTask(kit, t, steps ?? t.task.reference, out);
  return out;
}
const failedIds = (vs: { criterion: string; passed: boolean }[]): string[] =>
  vs.filter((v) => !v.passed).map((v) => v.criterion);

beforeAll(async () => {
  dir = await tempDir('bim');
  for (const id of ['bim-add-door', 'bim-fire-rating', 'bim-add-slab', 'bim-retype-wall'])
    tasks[id] = await loadTask(path.join(STARTER, id), { verifiers: verifierRules });
});
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

function verifyFile(
  artifactsDir: string,
  deliverable: string,
  params: Record<string, unknown>,
  taskDir = artifactsDir,
): Promise<Verdict> {
  return verifyCriterion(
    { artifactsDir, taskDir, runTool: kit.runTool },
    { id: 'x', verifier: 'ifc.model', deliverable, role: 'check', params },
  );
}

describe('ifc.model on bim-add-door', () => {
  const ctx = (art: string) => ({
    artifactsDir: art,
    taskDir: tasks['bim-add-door']!.dir,
    runTool: kit.runTool,
  });

  it('passes the reference edit on every criterion, reporting the three parts', async () => {
    const art = await play('bim-add-door', 'door-ref');
    const vs = await verifyAll(ctx(art), tasks['bim-add-door']!.task);
    expect(failedIds(vs), JSON.stringify(vs, null, 2)).toEqual([]);
    const geo = vs.find((v) => v.criterion === 'geometry')!;
    expect(geo.measured).toMatchObject({ schema: 'IFC4', geometric: { passed: 3, total: 3 } });
    expect(geo.reason).toMatch(/geometric 3\/3, semantic 2\/2 → pass/);
  });
  it('passes the alternative (a containment relation of its own)', async () => {
    const t = tasks['bim-add-door']!;
    const art = await play('bim-add-door', 'door-alt', t.alternatives['own-containment']!.actions);
    expect(failedIds(await verifyAll(ctx(art), t.task))).toEqual([]);
  });
  it('fails a door in no storey on placement only, saying so', async () => {
    const t = tasks['bim-add-door']!;
    const art = await play('bim-add-door', 'door-uncontained', t.defects['not-contained']!.actions);
    const vs = await verifyAll(ctx(art), t.task);
    expect(failedIds(vs)).toEqual(['placement']);
    expect(vs.find((v) => v.criterion === 'placement')!.reason).toMatch(
      /IfcDoor 'D-01' is in no storey, expected 'Level 0'/,
    );
  });
  it('fails a changed GlobalId of another wall on untouched only', async () => {
    const t = tasks['bim-add-door']!;
    const art = await play('bim-add-door', 'door-guid', t.defects['guid-changed']!.actions);
    const vs = await verifyAll(ctx(art), t.task);
    expect(failedIds(vs)).toEqual(['untouched']);
    expect(vs.find((v) => v.criterion === 'untouched')!.reason).toMatch(
      /IfcWall 'L0-W-East' GlobalId \S+ is gone/,
    );
  });
});

describe('ifc.model on the other BIM tasks', () => {
  it.each([
    [
      'bim-fire-rating',
      'missed-wall',
      ['ratings'],
      /L1-W-North' Pset_WallCommon.FireRating = 'EI30', expected 'EI90'/,
    ],
    ['bim-fire-rating', 'new-guids', ['untouched'], /GlobalId \S+ is gone/],
    [
      'bim-add-slab',
      'in-floor',
      ['geometry'],
      /IfcSlab 'Roof' bbox_min \[0, 3, -6\] m, expected \[0, 6, -6\]/,
    ],
    ['bim-add-slab', 'wrong-storey', ['placement'], /contained in 'Level 0', expected 'Level 1'/],
    [
      'bim-retype-wall',
      'recreated',
      ['retyped'],
      /0 × IfcWall \(GlobalId 1g2993lV\$TcoB11eLAKGyl\) found, expected exactly 1/,
    ],
    [
      'bim-retype-wall',
      'wrong-wall',
      ['retyped', 'untouched'],
      /IfcWall 'L1-W-South' \(\S+\) is now IfcWall 'L1-Parapet-North'/,
    ],
  ])('%s: reference passes, defect %s fails %j for the intended reason', async (id, defect, fails, why) => {
    const t = tasks[id]!;
    const ctx = (art: string) => ({ artifactsDir: art, taskDir: t.dir, runTool: kit.runTool });
    const ref = await verifyAll(ctx(await play(id, `${id}-ref`)), t.task);
    expect(failedIds(ref), JSON.stringify(ref, null, 2)).toEqual([]);
    for (const [name, a] of Object.entries(t.alternatives))
      expect([
        name,
        failedIds(await verifyAll(ctx(await play(id, `${id}-${name}`, a.actions)), t.task)),
      ]).toEqual([name, []]);
    const vs = await verifyAll(ctx(await play(id, `${id}-${defect}`, t.defects[defect]!.actions)), t.task);
    expect(failedIds(vs)).toEqual(fails);
    expect(
      vs
        .filter((v) => !v.passed)
        .map((v) => v.reason)
        .join('\n'),
    ).toMatch(why);
  });
});

describe('ifc.model on wrong values and broken files', () => {
  const ratings = {
    elements: [
      {
        select: { type: 'IfcWall', storey: 'Level 1' },
        count: { equals: 4 },
        properties: { 'Pset_WallCommon.FireRating': 'EI90' },
      },
    ],
  };
  let good: string;
  beforeAll(async () => {
    good = await readFile(FIXTURE, 'utf8');
    const write = (name: string, content: string | Buffer) => writeFile(path.join(dir.path, name), content);
    await write('office.ifc', good);
    await write('ei60.ifc', good.replaceAll("IFCLABEL('EI30')", "IFCLABEL('EI60')"));
    await write('truncated.ifc', good.slice(0, Math.floor(good.length / 2)));
    await write('empty.ifc', '');
    await write('garbage.ifc', Buffer.from([0, 1, 2, 3, 255, 254, 10, 13]));
    await write('bad-entity.ifc', good.replace(/#49=IFCWALL\([^;]*;/, '#49=IFCWALL(((;'));
    await write('schema.ifc', good.replace("FILE_SCHEMA(('IFC4'))", "FILE_SCHEMA(('AP214'))"));
    await write('not-ifc.ifc', 'solid cube\n  facet normal 0 0 1\nendsolid cube\n');
    // The FireRating set of L0-W-South (#53) is pointed at an entity that does not exist.
    await write(
      'dangling.ifc',
      good.replace(/(#54=IFCRELDEFINESBYPROPERTIES\([^;]*\(#49\)),#53\);/, '$1,#9999);'),
    );
    // A body for a door that no product uses (the representation names the existing extrusion #46).
    await write(
      'orphan.ifc',
      good.replace(
        'ENDSEC;\nEND-ISO-10303-21;',
        "#9000=IFCSHAPEREPRESENTATION(#11,'Body','SweptSolid',(#46));\nENDSEC;\nEND-ISO-10303-21;",
      ),
    );
    // Level 1's walls claim a height of 3.5 m; their solids are 3 m high.
    await write(
      'tall-claim.ifc',
      good.replaceAll("IFCQUANTITYLENGTH('Height',$,$,3.,$)", "IFCQUANTITYLENGTH('Height',$,$,3.5,$)"),
    );
  });

  it('reports the measured values of passing checks, and the integrity it found', async () => {
    const v = await verifyFile(dir.path, 'office.ifc', {
      elements: [
        {
          select: { type: 'IfcWall', storey: 'Level 1' },
          count: { equals: 4 },
          properties: { 'Pset_WallCommon.FireRating': 'EI30' },
          quantities_match_geometry: true,
        },
        { select: { type: 'IfcWall', name: 'L0-W-South' }, volume: 6, bbox_size: [10, 3, 0.2] },
      ],
    });
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    expect(v.reason).toMatch(/IfcWall \(in 'Level 1'\) Pset_WallCommon.FireRating: 'EI30' on all 4/);
    expect(v.reason).toMatch(/references among \d+ entities resolve$/);
    const checks = (v.measured as { checks: string[] }).checks.join('\n');
    expect(checks).toMatch(/ok \[geometric\] IfcWall \(name 'L0-W-South'\) volume: 6 m³/);
    expect(checks).toMatch(/ok \[geometric\] IfcWall \(name 'L0-W-South'\) bbox_size: \[10, 3, 0.2\] m/);
    expect(checks).toMatch(
      /IfcWall 'L1-W-South' Qto_WallBaseQuantities.Length = 10 m \(geometry is 10 m long\), Qto_WallBaseQuantities.Width = 0.2 m \(geometry is 0.2 m wide\), Qto_WallBaseQuantities.Height = 3 m \(geometry is 3 m high\)/,
    );
    expect(v.measured).toMatchObject({ integrity: { dangling: 0, orphaned_representations: 0 } });
  });
  it('fails a dangling #ref, naming the entity line that holds it', async () => {
    const v = await verifyFile(dir.path, 'dangling.ifc', ratings);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(
      /^dangling\.ifc: 1 dangling reference: line \d+: #54=IFCRELDEFINESBYPROPERTIES\('[^']+',\$,\$,\$,\(#49\),#9999\); refers to #9999, which no entity defines$/,
    );
    expect(v.measured).toMatchObject({ integrity: { dangling: 1 } });
  });
  it('fails a shape representation no product uses, or only reports it when asked', async () => {
    const v = await verifyFile(dir.path, 'orphan.ifc', ratings);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(
      /^orphan\.ifc: 1 orphaned shape representation: line \d+: #9000=IFCSHAPEREPRESENTATION\(#11,'Body','SweptSolid',\(#46\)\); is used by no product$/,
    );
    const reported = await verifyFile(dir.path, 'orphan.ifc', { ...ratings, orphans: 'report' });
    expect(reported.reason).toMatch(/1 orphaned representation\(s\) reported$/);
    expect(reported.measured).toMatchObject({ integrity: { orphaned_representations: 1 } });
  });
  it('fails base quantities that the geometry contradicts, naming claim and measure', async () => {
    const v = await verifyFile(dir.path, 'tall-claim.ifc', {
      elements: [{ select: { type: 'IfcWall', storey: 'Level 1' }, quantities_match_geometry: true }],
    });
    expect(v).toMatchObject({ passed: false });
    expect(v.reason).toMatch(
      /IfcWall 'L1-W-South' claims Qto_WallBaseQuantities.Height = 3.5 m but its geometry is 3 m high/,
    );
  });

  it('measures the untouched input: 8 walls, 2 slabs, wall volume 6 m³ and its bbox', async () => {
    const v = await verifyFile(dir.path, 'office.ifc', {
      counts: [
        { type: 'IfcWall', equals: 8 },
        { type: 'IfcSlab', equals: 2 },
        { type: 'IfcBuildingStorey', equals: 2 },
      ],
      elements: [
        {
          select: { type: 'IfcWall', name: 'L0-W-South' },
          volume: 6,
          bbox_min: [0, 0, -0.1],
          bbox_size: [10, 3, 0.2],
          storey: 'Level 0',
          aggregated_in: undefined,
        },
        { select: { type: 'IfcBuildingStorey', name: 'Level 1' }, aggregated_in: 'Building A' },
      ],
    });
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
  });
  it('fails a wrong property value with the value found', async () => {
    const v = await verifyFile(dir.path, 'ei60.ifc', ratings);
    expect(v).toMatchObject({ passed: false });
    expect(v.reason).toMatch(/Pset_WallCommon.FireRating = 'EI60', expected 'EI90'/);
    expect(v.measured).toMatchObject({ semantic: { passed: 1, total: 2 } });
    expect(v.score).toBeCloseTo(0.5);
  });
  it('weights parts and passes when only the required parts pass', async () => {
    const params = {
      elements: [{ select: { type: 'IfcWall', name: 'L0-W-South' }, storey: 'Level 1', volume: 6 }],
      required: ['geometric'],
      weights: { geometric: 3, topological: 1 },
    };
    const v = await verifyFile(dir.path, 'office.ifc', params);
    // semantic 1/1, topological 0/1, geometric 1/1 with weights 1, 1, 3.
    expect(v).toMatchObject({ passed: true });
    expect(v.score).toBeCloseTo(4 / 5);
  });
  it.each([
    ['truncated.ifc', /truncated: it does not end with "END-ISO-10303-21;"/],
    ['empty.ifc', /deliverable empty.ifc is empty/],
    ['garbage.ifc', /is not IFC: it does not start with "ISO-10303-21;"/],
    ['schema.ifc', /declares schema AP214/],
    ['not-ifc.ifc', /is not IFC/],
  ])('fails %s with the reason', async (file, why) => {
    const v = await verifyFile(dir.path, file, ratings);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(why);
  });
  it('names a malformed entity line instead of missing the element it held', async () => {
    const v = await verifyFile(dir.path, 'bad-entity.ifc', {
      elements: [{ select: { type: 'IfcWall', name: 'L0-W-South' }, volume: 6 }],
    });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(
      /^bad-entity\.ifc: 1 malformed entity: line \d+: #49=IFCWALL\(\(\(; is malformed \(3 unclosed '\('\)$/,
    );
  });
  it('fails when the reference of untouched is missing, and rejects params with no checks', async () => {
    const v = await verifyFile(dir.path, 'office.ifc', { untouched: { reference: 'hidden/none.ifc' } });
    expect(v.reason).toMatch(/task error: reference hidden\/none.ifc is not in the task folder/);
    expect(IfcModelParams.safeParse({}).success).toBe(false);
    expect((await verifyFile(dir.path, 'office.ifc', { counts: [{ type: 'wall' }] })).reason).toMatch(
      /invalid params for ifc.model/,
    );
  });
});
