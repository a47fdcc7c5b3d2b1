/**
 * `calculix.result`: a cantilever meshed by the real gmsh and solved by the real ccx in a tool
 * container (inputs in test/fixtures/cae), read back from .frd/.dat/.sta, and re-solved from the
 * .inp; faked, corrupt, truncated, empty and wrong-format results fail with the reason.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../actors/sandbox/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';
import { CLI_IMAGE } from '../helpers/docker.js';

const FIX = path.resolve('test/fixtures/cae');
const TIP = { min: [99.99, -0.01, -0.01], max: [100.01, 10.01, 10.01] };
const ROOT = { min: [-0.01, -0.01, -0.01], max: [0.01, 10.01, 10.01] };

const kit = toolKit('verifiers-cae-calculix');
let dir: { path: string } & AsyncDisposable;

beforeAll(async () => {
  dir = await tempDir('cae-ccx');
  const src = await tempDir('cae-ccx-src');
  try {
    await writeFiles(src.path, {
      'beam.geo': await readFile(path.join(FIX, 'beam.geo')),
      'deck.py': await readFile(path.join(FIX, 'deck.py')),
    });
    const r = await kit.runTool({
      image: CLI_IMAGE,
      command: [
        'gmsh beam.geo -3 -format inp -o mesh.inp >/dev/null',
        'python3 deck.py ref 210000 static && python3 deck.py alu 70000 static',
        'python3 deck.py modal 210000 frequency && python3 deck.py nomat 210000 static no',
        'for j in ref modal; do OMP_NUM_THREADS=1 ccx -i $j >/dev/null; done',
      ].join(' && '),
      files: ['beam.geo', 'deck.py'].map((f) => ({ hostPath: path.join(src.path, f), dest: f })),
      timeoutMs: 120_000,
      collect: [
        'ref.inp',
        'ref.frd',
        'ref.dat',
        'ref.sta',
        'alu.inp',
        'modal.inp',
        'modal.dat',
        'modal.frd',
        'nomat.inp',
      ],
    });
    const f = r.files;
    if (f['ref.frd'] === undefined || f['modal.dat'] === undefined)
      throw new Error(`ccx failed: ${r.stdout}${r.stderr}`);
    const frd = f['ref.frd'].toString('latin1');
    await writeFiles(dir.path, {
      ...f,
      // a deck with aluminium's modulus delivered with the steel results: re-solving exposes it
      'fake.inp': f['alu.inp']!,
      'truncated.frd': frd.slice(0, Math.floor(frd.length / 2)),
      'noend.frd': frd.replace(/\s*9999\s*$/, '\n'),
      'wrong.frd': f['ref.dat']!,
      'binary.frd': Buffer.from([0x00, 0x01, 0x02, 0xff]),
      'header-only.sta':
        'SUMMARY OF JOB INFORMATION\n  STEP      INC     ATT  ITRS     TOT TIME     STEP TIME      INC TIME\n',
      'half.sta': f['ref.sta']!.toString().replace(
        /0\.100000E\+01  0\.100000E\+01  0\.100000E\+01/,
        '0.500000E+00  0.500000E+00  0.500000E+00',
      ),
      'empty.frd': '',
    });
  } finally {
    await src[asyncDispose]();
  }
}, 180_000);
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

const check = (
  deliverable: string,
  params: Record<string, unknown>,
  role: 'quality' | 'feasibility' = 'feasibility',
): Promise<Verdict> =>
  verifyCriterion(contextFor(kit, dir.path), {
    id: 'c',
    verifier: 'calculix.result',
    deliverable,
    role,
    params,
  });

describe('calculix.result on results ccx wrote', () => {
  it('scores the tip deflection from the .frd, the .dat set and a re-solve near −FL³/3EI', async () => {
    const target = { quantity: 'displacement', component: 'z', target: -0.19048 };
    const frd = await check('ref.frd', { ...target, region: TIP }, 'quality');
    expect(frd, frd.reason).toMatchObject({ passed: true, score: 1 });
    expect(frd.measured as number).toBeCloseTo(-0.1904, 3);
    const dat = await check('ref.dat', { ...target, set: 'tip' }, 'quality');
    expect(dat, dat.reason).toMatchObject({ passed: true, score: 1 });
    const re = await check('ref.inp', { ...target, region: TIP, resolve: true }, 'quality');
    expect(re, re.reason).toMatchObject({ passed: true, score: 1 });
    expect(re.reason).toMatch(/re-solved with ccx/);
  });
  it('reads max |U|, the nearest node to a point and max von Mises (≈ 60 MPa at the root)', async () => {
    const u = await check('ref.frd', { quantity: 'max_displacement', range: { min: 0.18, max: 0.2 } });
    expect(u, u.reason).toMatchObject({ passed: true });
    const at = await check('ref.frd', {
      quantity: 'displacement',
      at: [100, 5, 5],
      component: 'z',
      range: { max: -0.18 },
    });
    expect(at.reason).toMatch(/nearest to \[100, 5, 5\]/);
    const vm = await check('ref.frd', {
      quantity: 'max_von_mises',
      range: { min: 50, max: 90 },
      unit: 'MPa',
    });
    expect(vm, vm.reason).toMatchObject({ passed: true });
    const vmDat = await check('ref.dat', {
      quantity: 'max_von_mises',
      set: 'beam',
      range: { min: 40, max: 90 },
    });
    expect(vmDat, vmDat.reason).toMatchObject({ passed: true });
  });
  it('checks equilibrium from the .dat totals and from .frd FORC at the clamp, and fails a wrong load', async () => {
    const ok = await check('ref.dat', { quantity: 'equilibrium', set: 'fixed', applied: [0, 0, -100] });
    expect(ok, ok.reason).toMatchObject({ passed: true, score: 1 });
    const frd = await check('ref.frd', { quantity: 'equilibrium', region: ROOT, applied: [0, 0, -100] });
    expect(frd, frd.reason).toMatchObject({ passed: true });
    const wrong = await check('ref.dat', { quantity: 'equilibrium', set: 'fixed', applied: [0, 0, -120] });
    expect(wrong).toMatchObject({ passed: false, score: 0 });
    expect(wrong.reason).toMatch(/NOT in equilibrium/);
    const r = await check(
      'ref.dat',
      { quantity: 'reaction', set: 'fixed', component: 'z', target: 100 },
      'quality',
    );
    expect(r, r.reason).toMatchObject({ passed: true, score: 1 });
  });
  it('reads convergence from the .sta, and fails a step that stopped half way or never converged', async () => {
    expect(await check('ref.sta', { quantity: 'converged' })).toMatchObject({ passed: true, measured: 1 });
    expect((await check('half.sta', { quantity: 'converged' })).reason).toMatch(
      /stopped at step time 0\.5 of 1 \(not converged\)/,
    );
    expect((await check('header-only.sta', { quantity: 'converged' })).reason).toMatch(
      /no converged increment/,
    );
  });
  it('reads eigenfrequencies from the .dat and the .frd (mode 1 ≈ 835 Hz)', async () => {
    const f = await check(
      'modal.dat',
      { quantity: 'frequency', mode: 1, target: 835.5, unit: 'Hz' },
      'quality',
    );
    expect(f, f.reason).toMatchObject({ passed: true, score: 1 });
    const g = await check('modal.frd', { quantity: 'frequency', mode: 1, range: { min: 800, max: 870 } });
    expect(g, g.reason).toMatchObject({ passed: true });
    expect((await check('modal.dat', { quantity: 'frequency', mode: 9, range: { min: 1 } })).reason).toMatch(
      /no eigenfrequency for mode 9/,
    );
  });
});

describe('calculix.result fails what it cannot trust or read', () => {
  it('re-solving a deck exposes results that do not come from it', async () => {
    const v = await check(
      'fake.inp',
      { quantity: 'displacement', region: TIP, component: 'z', target: -0.19048, resolve: true },
      'quality',
    );
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.measured as number).toBeCloseTo(-0.571, 2);
  });
  it('names the ccx error of a deck that does not solve', async () => {
    const v = await check('nomat.inp', { quantity: 'converged', resolve: true });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(/ccx wrote no results|error/i);
  });
  it('fails truncated, unterminated, wrong-format, binary, empty and unsolved inputs', async () => {
    const p = { quantity: 'max_von_mises', range: { max: 100 } };
    expect((await check('truncated.frd', p)).reason).toMatch(/truncated/);
    expect((await check('noend.frd', p)).reason).toMatch(/no "9999" end marker/);
    expect((await check('wrong.frd', p)).reason).toMatch(/not a CalculiX \.frd/);
    expect((await check('binary.frd', p)).reason).toMatch(/binary content/);
    expect((await check('empty.frd', p)).reason).toMatch(/is empty/);
    expect((await check('ref.inp', p)).reason).toMatch(/an \.inp holds no results/);
    expect((await check('ref.frd', { quantity: 'max_von_mises' })).reason).toMatch(
      /exactly one of range and target/,
    );
  });
});
