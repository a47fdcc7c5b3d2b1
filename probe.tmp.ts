import { verifyCriterion } from './verifiers/index.js';
const ctx = { artifactsDir: '/tmp/bimwork', taskDir: '/tmp/bimwork/task', runTool: async () => { throw new Error('no'); } };
const params = {
  counts: [{ type: 'IfcDoor', equals: 1 }, { type: 'IfcOpeningElement', equals: 1 }, { type: 'IfcWall', equals: 8 }],
  elements: [
    { select: { type: 'IfcDoor', name: 'D-01' }, count: { equals: 1 }, predefined_type: 'DOOR', storey: 'Level 0', fills_opening_in: 'L0-W-South', bbox_size: [0.9, 2.1, 0.05], bbox_min: [1.55, 0, -0.025] },
    { select: { type: 'IfcWall', name: 'L0-W-South' }, volume: 5.622 },
    { select: { type: 'IfcWall', storey: 'Level 1' }, count: { equals: 4 }, properties: { 'Pset_WallCommon.FireRating': 'EI30', 'Qto_WallBaseQuantities.Height': 3, 'Pset_WallCommon.IsExternal': true } },
  ],
  untouched: { reference: 'model.ifc', except: ['L0-W-South'] },
};
for (const f of ['office-door.ifc', 'model.ifc', 'add_door.py']) {
  const t = performance.now();
  const v = await verifyCriterion(ctx, { id: 'x', verifier: 'ifc.model', deliverable: f, role: 'check', params });
  console.log(f, Math.round(performance.now() - t), 'ms', v.passed, v.score, v.reason, String(JSON.stringify(v.measured)).slice(0, 1800));
}
