/**
 * Red team for `calculix.result`: each attempt is a real artifact — a cantilever meshed by the real
 * gmsh and solved by the real ccx — then tampered so that it would pass a criterion it fails, and
 * each must fail with a reason naming the attempt. Without the re-solve, every one of them passes
 * (shown with `trust_results: true` where the forged file reads as a pass).
 */
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';
import { editDeck, makeCantilever, REF_COMMANDS } from '../fixtures/cae/ccx.js';

const TIP = { min: [99.99, -0.01, -0.01], max: [100.01, 10.01, 10.01] };
const kit = toolKit('verifiers-red-team-cae');
let dir: { path: string } & AsyncDisposable;

/** The .frd with every value of component `c` (0-based) of block `name` scaled by `k`. */
function scaleFrd(frd: string, name: string, c: number, k: number): string {
  let inBlock = false;
  return frd
    .split('\n')
    .map((l) => {
      if (l.startsWith(' -4')) inBlock = l.slice(5, 13).trim() === name;
      else if (l.startsWith(' -3')) inBlock = false;
      else if (inBlock && l.startsWith(' -1')) {
        const at = 13 + 12 * c;
        const v = Number(l.slice(at, at + 12)) * k;
        return (
          l.slice(0, at) +
          v
            .toExponential(5)
            .replace(/e([+-])(\d)$/, 'E$10$2')
            .toUpperCase()
            .padStart(12) +
          l.slice(at + 12)
        );
      }
      return l;
    })
    .join('\n');
}

beforeAll(async () => {
  dir = await tempDir('red-team-cae');
  const f = await makeCantilever(
    kit.runTool,
    [
      ...REF_COMMANDS,
      'python3 deck.py alu 70000 static',
      // a coarser mesh of the same beam, solved the same way
      "sed 's/CharacteristicLengthMax = 4/CharacteristicLengthMax = 8/' beam.geo > coarse.geo",
      'gmsh coarse.geo -3 -format inp -o mesh.inp >/dev/null && python3 deck.py coarse 210000 static',
      'OMP_NUM_THREADS=1 ccx -i coarse >/dev/null',
    ],
    ['ref.inp', 'ref.frd', 'ref.dat', 'ref.sta', 'alu.inp', 'coarse.frd'],
  );
  const ref = f['ref.inp']!.toString();
  const frd = f['ref.frd']!.toString('latin1');
  // ten fixed increments of 0.1 allowed three: ccx stops at step time 0.3 with exit 201
  const noconv = editDeck(ref, '*STEP\n*STATIC\n', '*STEP, NLGEOM, INC=3\n*STATIC, DIRECT\n0.1, 1.0\n');
  await writeFiles(dir.path, {
    'edit.inp': ref,
    'edit.frd': scaleFrd(frd, 'DISP', 2, 1.05),
    'editdat.inp': ref,
    'editdat.dat': editDeck(
      f['ref.dat']!,
      /(total force \(fx,fy,fz\) for set FIXED[^\n]*\n\n\s+\S+\s+\S+\s+)1\.000000E\+02/,
      '$11.200000E+02',
    ),
    'claim.inp': noconv,
    'claim.sta': f['ref.sta']!,
    'other.inp': f['alu.inp']!,
    'other.frd': f['ref.frd']!,
    'coarse-with-fine.inp': ref,
    'coarse-with-fine.frd': f['coarse.frd']!,
    'nodeck.frd': f['ref.frd']!,
    // E = 0 makes ccx stop; the heading and an unknown card carry ccx's words of success
    'markers.inp': editDeck(ref, '210000, 0.3', '0, 0.3').replace(
      /^/,
      '*HEADING\nJob finished engiloop-ccx exit=0\n*FOO, engiloop-ccx exit=0 Job finished\n',
    ),
    'linked.inp': `*INCLUDE, INPUT=parts/mesh.inp\n${ref.slice(ref.indexOf('*MATERIAL'))}`,
  });
  // a symbolic link inside the artifacts that leads out of them
  await writeFiles(dir.path, { 'parts/.keep': '' });
  await symlink('/etc/hostname', path.join(dir.path, 'parts/mesh.inp'));
}, 300_000);
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

const check = (deliverable: string, params: Record<string, unknown>): Promise<Verdict> =>
  verifyCriterion(contextFor(kit, dir.path), {
    id: 'c',
    verifier: 'calculix.result',
    deliverable,
    role: 'quality',
    params,
  });
const NOT_SOLVED = /result file not produced by the solver from the delivered deck/;

describe('red team: calculix.result', () => {
  it('an .frd whose tip displacements were scaled by 5 % to hit the target', async () => {
    const p = { quantity: 'displacement', region: TIP, component: 'z', target: -0.2 };
    expect(await check('edit.frd', { ...p, trust_results: true })).toMatchObject({ passed: true, score: 1 });
    const v = await check('edit.frd', p);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(NOT_SOLVED);
    expect(v.reason).toMatch(
      /edit\.inp \(DISP \(block 1, step 1\) D3 at node \d+: -0\.\d+ delivered vs -0\.\d+ re-solved/,
    );
    expect(v.measured).toMatchObject({
      delivered: expect.closeTo(-0.1998, 3),
      resolved: expect.closeTo(-0.1903, 3),
    });
  });
  it('a .dat whose total reaction was typed to balance a 120 N load', async () => {
    const p = { quantity: 'equilibrium', set: 'fixed', applied: [0, 0, -120] };
    expect(await check('editdat.dat', { ...p, trust_results: true })).toMatchObject({ passed: true });
    const v = await check('editdat.dat', p);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(NOT_SOLVED);
    expect(v.reason).toMatch(/total force of set FIXED at time 1, total: 120 delivered vs 100 re-solved/);
  });
  it('a converged .sta delivered with a deck that does not converge', async () => {
    expect(await check('claim.sta', { quantity: 'converged', trust_results: true })).toMatchObject({
      passed: true,
    });
    const v = await check('claim.sta', { quantity: 'converged' });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(NOT_SOLVED);
    expect(v.reason).toMatch(
      /delivered 1 increment\(s\), the last reaching step 1 time 1 vs re-solved 3 increment\(s\), the last reaching step 1 time 0\.3; the re-solve: ccx exit 201: \*ERROR in nonlingeo: max\. # of increments reached/,
    );
  });
  it('an .frd of another deck (steel) delivered with the aluminium deck: the stress agrees, the field does not', async () => {
    const v = await check('other.frd', { quantity: 'max_von_mises', range: { min: 50, max: 90 } });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(NOT_SOLVED);
    expect(v.reason).toMatch(/DISP .* D3 at node \d+: -0\.19\d* delivered vs -0\.57\d* re-solved/);
    const m = v.measured as { delivered: number; resolved: number };
    expect(m.delivered).toBeCloseTo(m.resolved, 2);
  });
  it('the results of a coarser mesh delivered with the fine deck', async () => {
    const v = await check('coarse-with-fine.frd', { quantity: 'max_von_mises', range: { min: 40, max: 90 } });
    expect(v).toMatchObject({ passed: false });
    expect(v.reason).toMatch(
      /result file not produced .* \(the mesh differs: \d+ nodes delivered vs \d+ re-solved/,
    );
  });
  it('results delivered without the deck that made them', async () => {
    const v = await check('nodeck.frd', { quantity: 'max_von_mises', range: { max: 90 } });
    expect(v).toMatchObject({ passed: false, score: 0, measured: { delivered: expect.closeTo(60.5, 0) } });
    expect(v.reason).toMatch(/no deck to re-solve: nodeck\.inp was not delivered/);
  });
  it('a failing deck that makes ccx print "Job finished" and the exit line', async () => {
    const v = await check('markers.inp', { quantity: 'converged' });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(/ccx exit 201: \*ERROR reading \*ELASTIC/);
    expect(v.seal).toMatch(/^[0-9a-f]{16}$/);
  });
  it('a deck that includes a file outside the artifacts through a symbolic link', async () => {
    const v = await check('linked.inp', { quantity: 'converged' });
    expect(v).toMatchObject({ passed: false });
    expect(v.reason).toMatch(
      /\*INCLUDE, INPUT=parts\/mesh\.inp \(linked\.inp line 1\): points outside the delivered files — refused/,
    );
  });
});
