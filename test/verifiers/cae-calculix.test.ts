/**
 * `calculix.result`: a cantilever meshed by the real gmsh and solved by the real ccx in a tool
 * container (inputs in test/fixtures/cae), read back from .frd/.dat/.sta — each checked against a
 * fresh solve of its deck — and from the deck itself. Decks with the defects a person makes (a
 * support on a set that does not exist, no load, a load on the clamp, no material, no density, an
 * unclosed step, an element on an undefined node — which crashes ccx —, an *INCLUDE from outside)
 * are named before any solve; unconstrained models, which ccx 2.20 solves to "Job finished" with
 * exit 0, are named singular. Corrupt, truncated, empty and wrong-format results fail with the reason.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';
import { CLI_IMAGE } from '../helpers/docker.js';
import { editDeck, makeCantilever } from '../fixtures/cae/ccx.js';

const TIP = { min: [99.99, -0.01, -0.01], max: [100.01, 10.01, 10.01] };
const ROOT = { min: [-0.01, -0.01, -0.01], max: [0.01, 10.01, 10.01] };
const CLAMP = '*BOUNDARY\nfixed, 1, 3, 0\n';

const kit = toolKit('verifiers-cae-calculix');
let dir: { path: string } & AsyncDisposable;
/** What ccx itself did with a defective deck: exit status and whether it printed "Job finished". */
const ccxSaid: Record<string, { exit: number; finished: boolean }> = {};

/** Id of the node at `p` in a deck's *NODE block. */
function nodeAt(deck: string, p: [number, number, number]): number {
  for (const m of deck.matchAll(/^(\d+), ([-\d.e]+), ([-\d.e]+), ([-\d.e]+)$/gm))
    if ([m[2], m[3], m[4]].every((v, i) => Math.abs(Number(v) - p[i]!) < 1e-9)) return Number(m[1]);
  throw new Error(`no node at ${p.join(', ')}`);
}

beforeAll(async () => {
  dir = await tempDir('cae-ccx');
  const f = await makeCantilever(
    kit.runTool,
    [
      'gmsh beam.geo -3 -format inp -o mesh.inp >/dev/null',
      'python3 deck.py ref 210000 static && python3 deck.py alu 70000 static',
      'python3 deck.py modal 210000 frequency && python3 deck.py nomat 210000 static no',
      'cp ref.inp ref2.inp && for j in ref modal; do OMP_NUM_THREADS=1 ccx -i $j >/dev/null; done',
      // the same deck on two threads: the last printed digits differ, the results do not
      'OMP_NUM_THREADS=2 ccx -i ref2 >/dev/null',
    ],
    [
      ...['ref.inp', 'ref.frd', 'ref.dat', 'ref.sta', 'ref2.inp', 'ref2.frd', 'ref2.dat'],
      ...['alu.inp', 'modal.inp', 'modal.dat', 'modal.frd', 'nomat.inp'],
    ],
  );
  const ref = f['ref.inp']!.toString();
  const frd = f['ref.frd']!.toString('latin1');
  const el = ref.indexOf('\n', ref.indexOf('*ELEMENT, type=C3D10')) + 1;
  const elLine = ref.slice(el, ref.indexOf('\n', el));
  const withElement = (line: string): string => ref.slice(0, el) + line + ref.slice(el + elLine.length);
  const corner = (p: [number, number, number]): number => nodeAt(ref, p);
  const decks: Record<string, string> = {
    'nobc.inp': editDeck(ref, CLAMP, ''),
    'xonly.inp': editDeck(ref, CLAMP, '*BOUNDARY\nfixed, 1, 1, 0\n'),
    'onenode.inp': editDeck(ref, CLAMP, `*BOUNDARY\n${corner([0, 0, 0])}, 1, 3, 0\n`),
    // 3-2-1: six DOFs on three corners of the root face, statically determinate but sufficient
    'det321.inp': editDeck(
      ref,
      CLAMP,
      `*BOUNDARY\n${corner([0, 0, 0])}, 1, 3, 0\n${corner([0, 10, 0])}, 1, 1, 0\n${corner([0, 10, 0])}, 3, 3, 0\n${corner([0, 0, 10])}, 1, 1, 0\n`,
    ),
    // an *EQUATION hides the x-only support from the deck check: the solution shows it
    'eqsing.inp': editDeck(
      ref,
      CLAMP,
      `*EQUATION\n2\n${corner([100, 0, 0])}, 1, 1.0, ${corner([100, 10, 0])}, 1, -1.0\n*BOUNDARY\nfixed, 1, 1, 0\n`,
    ),
    'noload.inp': editDeck(ref, /\*CLOAD\ntip, 3, [^\n]+\n/, ''),
    'loadonfix.inp': editDeck(ref, '*CLOAD\ntip', '*CLOAD\nfixed'),
    'badset.inp': editDeck(ref, 'fixed, 1, 3, 0', 'fixd, 1, 3, 0'),
    'encastre.inp': editDeck(ref, 'fixed, 1, 3, 0', 'fixed, ENCASTRE'),
    'emptyset.inp': editDeck(ref, CLAMP, '*NSET, NSET=clamp\n*BOUNDARY\nclamp, 1, 3, 0\n'),
    'badmat.inp': editDeck(ref, 'MATERIAL=STEEL', 'MATERIAL=ALU'),
    'nodens.inp': editDeck(f['modal.inp']!, '*DENSITY\n7.85e-9\n', ''),
    'noend.inp': editDeck(ref, '*END STEP\n', ''),
    'nostep.inp': ref.slice(0, ref.indexOf('*STEP')),
    'undefnode.inp': withElement(elLine.replace(/^(\d+, \d+, \d+, )\d+/, '$199999')),
    'short.inp': withElement(elLine.replace(/, \d+$/, '')),
    // the mesh in an included file inside the artifacts, and includes from outside
    'parts/mesh.inp': ref.slice(0, ref.indexOf('*MATERIAL')),
    'incok.inp': `*INCLUDE, INPUT=parts/mesh.inp\n${ref.slice(ref.indexOf('*MATERIAL'))}`,
    'incabs.inp': `*INCLUDE, INPUT=/etc/passwd\n${ref}`,
    'incup.inp': `*INCLUDE, INPUT=../ref.inp\n`,
    'incmissing.inp': `*INCLUDE, INPUT=parts/none.inp\n${ref.slice(ref.indexOf('*MATERIAL'))}`,
  };
  await writeFiles(dir.path, {
    ...f,
    ...decks,
    // a deck with aluminium's modulus: its re-solve is what counts, not the steel results
    'fake.inp': f['alu.inp']!,
    'slow.inp': `${f['alu.inp']!.toString()}** not solved before: not in the solve cache\n`,
    'truncated.frd': frd.slice(0, Math.floor(frd.length / 2)),
    'noend.frd': frd.replace(/\s*9999\s*$/, '\n'),
    'wrong.frd': f['ref.dat']!,
    'binary.frd': Buffer.from([0x00, 0x01, 0x02, 0xff]),
    'empty.frd': '',
    'header-only.sta':
      'SUMMARY OF JOB INFORMATION\n  STEP      INC     ATT  ITRS     TOT TIME     STEP TIME      INC TIME\n',
    'half.sta': f['ref.sta']!.toString().replace(
      /0\.100000E\+01  0\.100000E\+01  0\.100000E\+01/,
      '0.500000E+00  0.500000E+00  0.500000E+00',
    ),
  });
  const jobs = ['nobc', 'xonly', 'onenode', 'noload', 'loadonfix', 'noend', 'undefnode', 'eqsing'];
  const r = await kit.runTool({
    image: CLI_IMAGE,
    command: `for j in ${jobs.join(' ')}; do OMP_NUM_THREADS=1 ccx -i $j > $j.log 2>&1; echo "$j exit=$? finished=$(grep -c 'Job finished' $j.log)"; done`,
    files: jobs.map((j) => ({ hostPath: path.join(dir.path, `${j}.inp`), dest: `${j}.inp` })),
    timeoutMs: 120_000,
  });
  for (const m of r.stdout.matchAll(/^(\w+) exit=(\d+) finished=(\d+)$/gm))
    ccxSaid[m[1]!] = { exit: Number(m[2]), finished: m[3] !== '0' };
}, 300_000);
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
const CONVERGED = { quantity: 'converged' };

describe('calculix.result on results ccx wrote, checked against a re-solve of their deck', () => {
  it('scores the tip deflection from the .frd, the .dat set and the deck near −FL³/3EI', async () => {
    const target = { quantity: 'displacement', component: 'z', target: -0.19048 };
    const frd = await check('ref.frd', { ...target, region: TIP }, 'quality');
    expect(frd, frd.reason).toMatchObject({ passed: true, score: 1 });
    expect(frd.measured as number).toBeCloseTo(-0.1904, 3);
    expect(frd.reason).toMatch(
      /re-solved with ccx from ref\.inp; the delivered ref\.frd matches it \(2\d{3} nodes/,
    );
    expect(frd.seal).toMatch(/^[0-9a-f]{16}$/);
    const dat = await check('ref.dat', { ...target, set: 'tip' }, 'quality');
    expect(dat, dat.reason).toMatchObject({ passed: true, score: 1 });
    const re = await check('ref.inp', { ...target, region: TIP }, 'quality');
    expect(re, re.reason).toMatchObject({ passed: true, score: 1 });
    expect(re.reason).toMatch(/re-solved with ccx from ref\.inp$/);
  });
  it('accepts results ccx wrote on two threads (last digits differ) as the same solve', async () => {
    const v = await check('ref2.frd', { quantity: 'max_von_mises', range: { min: 50, max: 90 } });
    expect(v, v.reason).toMatchObject({ passed: true });
    const d = await check('ref2.dat', { quantity: 'equilibrium', set: 'fixed', applied: [0, 0, -100] });
    expect(d, d.reason).toMatchObject({ passed: true });
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
  it('scores one-sided: lower deflection is better', async () => {
    const v = await check(
      'ref.inp',
      { quantity: 'max_displacement', lower_is_better: { full: 0.1, zero: 0.3 }, unit: 'mm' },
      'quality',
    );
    expect(v, v.reason).toMatchObject({ passed: true });
    expect(v.score).toBeCloseTo((0.3 - 0.1904) / 0.2, 2);
    expect(v.reason).toMatch(/lower is better → score 0\.5/);
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
  it('reads convergence from the .sta; trusted as delivered, a half step or no increment fails', async () => {
    expect(await check('ref.sta', CONVERGED)).toMatchObject({ passed: true, measured: 1 });
    const trusted = { ...CONVERGED, trust_results: true };
    const half = await check('half.sta', trusted);
    expect(half.reason).toMatch(
      /stopped at step time 0\.5 of 1 \(not converged\).*not re-solved \(trust_results: true\)/,
    );
    expect((await check('header-only.sta', trusted)).reason).toMatch(/no converged increment/);
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

describe('calculix.result checks the deck before solving it', () => {
  it('names a support on a set the deck does not define, on an empty set, and a DOF ccx cannot read', async () => {
    const bad = await check('badset.inp', CONVERGED);
    expect(bad).toMatchObject({ passed: false, measured: { deck: { nodes: expect.any(Number) } } });
    expect(bad.reason).toMatch(
      /\*BOUNDARY \(badset\.inp line \d+\) acts on node set FIXD, which the deck does not define \(defined: FIXED, TIP/,
    );
    expect((await check('emptyset.inp', CONVERGED)).reason).toMatch(/acts on node set CLAMP, which is empty/);
    expect((await check('encastre.inp', CONVERGED)).reason).toMatch(/"ENCASTRE" is not a degree of freedom/);
  });
  it('names a static step without a load, and a load that acts only on clamped DOFs (ccx: exit 0)', async () => {
    expect(ccxSaid['noload']).toEqual({ exit: 0, finished: true });
    expect(ccxSaid['loadonfix']).toEqual({ exit: 0, finished: true });
    expect((await check('noload.inp', CONVERGED)).reason).toMatch(
      /static step 1 \(noload\.inp line \d+\) has no load/,
    );
    expect((await check('loadonfix.inp', CONVERGED)).reason).toMatch(
      /acts only on constrained DOFs \(FIXED DOF 3 .*held by \*BOUNDARY\)/,
    );
  });
  it('names elements without material, a section with an undefined material, a frequency step without density', async () => {
    expect((await check('nomat.inp', CONVERGED)).reason).toMatch(
      /\d+ of \d+ elements are in no \*SOLID SECTION \(or other section\), so they have no material/,
    );
    expect((await check('badmat.inp', CONVERGED)).reason).toMatch(
      /\*SOLID SECTION \(badmat\.inp line \d+\) assigns material ALU, which no \*MATERIAL defines \(defined: STEEL\)/,
    );
    expect((await check('nodens.inp', { quantity: 'frequency', range: { min: 1 } })).reason).toMatch(
      /material STEEL .* has no \*DENSITY, which the \*FREQUENCY step needs/,
    );
  });
  it('names a deck without steps, an unclosed step, an element on an undefined node or short of nodes', async () => {
    expect(ccxSaid['noend']).toEqual({ exit: 0, finished: true });
    // ccx 2.20 crashes on the undefined node (SIGSEGV, exit 139): the deck check names the cause
    expect(ccxSaid['undefnode']).toMatchObject({ finished: false });
    expect(ccxSaid['undefnode']!.exit).not.toBe(0);
    expect((await check('nostep.inp', CONVERGED)).reason).toMatch(/has no \*STEP, so ccx solves nothing/);
    expect((await check('noend.inp', CONVERGED)).reason).toMatch(
      /\*STEP at noend\.inp line \d+ has no \*END STEP, so ccx skips it/,
    );
    expect((await check('undefnode.inp', CONVERGED)).reason).toMatch(
      /element \d+ \(C3D10\) uses node 99999, which no \*NODE defines/,
    );
    expect((await check('short.inp', CONVERGED)).reason).toMatch(
      /element \d+ \(C3D10, short\.inp line \d+\) has 9 of its 10 nodes/,
    );
  });
  it('follows an *INCLUDE inside the delivered files, refuses one from outside, names a missing one', async () => {
    const ok = await check('incok.inp', {
      quantity: 'displacement',
      region: TIP,
      component: 'z',
      target: -0.19048,
    });
    expect(ok, ok.reason).toMatchObject({ passed: true, score: 1 });
    expect((await check('incabs.inp', CONVERGED)).reason).toMatch(
      /\*INCLUDE, INPUT=\/etc\/passwd \(incabs\.inp line 1\): points outside the delivered files — refused/,
    );
    expect((await check('incup.inp', CONVERGED)).reason).toMatch(/INPUT=\.\.\/ref\.inp .*refused/);
    expect((await check('incmissing.inp', CONVERGED)).reason).toMatch(/parts\/none\.inp was not delivered/);
  });
});

describe('calculix.result names singular models, although ccx exits 0 and prints "Job finished"', () => {
  it('names the rigid-body motions an unconstrained or under-constrained deck leaves free', async () => {
    for (const j of ['nobc', 'xonly', 'onenode']) expect(ccxSaid[j], j).toEqual({ exit: 0, finished: true });
    expect((await check('nobc.inp', CONVERGED)).reason).toMatch(
      /no \*BOUNDARY holds the model, so static step 1 .* is singular: all six rigid-body motions are free/,
    );
    expect((await check('xonly.inp', CONVERGED)).reason).toMatch(
      /leave 3 rigid-body motion\(s\) free \(translation along Y, translation along Z, rotation about X through \[0, 5, 5\]\): the stiffness is singular/,
    );
    expect((await check('onenode.inp', CONVERGED)).reason).toMatch(
      /rotation about X through \[0, 0, 0\], rotation about Y through \[0, 0, 0\], rotation about Z/,
    );
  });
  it('passes a statically determinate 3-2-1 support', async () => {
    const v = await check('det321.inp', { quantity: 'max_displacement', range: { max: 1 } });
    expect(v, v.reason).toMatchObject({ passed: true });
  });
  it('names a singular solution when an *EQUATION keeps the deck check from deciding', async () => {
    expect(ccxSaid['eqsing']).toEqual({ exit: 0, finished: true });
    const v = await check('eqsing.inp', { quantity: 'max_displacement', range: { max: 1 } });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(
      /singular model: the static solution of eqsing\.inp is a rigid-body motion — max \|U\| = .* × its size\), .* % of it deformation/,
    );
    expect((v.measured as { max_displacement: number }).max_displacement).toBeGreaterThan(1e6);
  });
});

describe('calculix.result fails what it cannot trust or read', () => {
  it('a deck is judged by its own solve: aluminium deflects 3× as far', async () => {
    const v = await check(
      'fake.inp',
      { quantity: 'displacement', region: TIP, component: 'z', target: -0.19048 },
      'quality',
    );
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.measured as number).toBeCloseTo(-0.571, 2);
  });
  it('fails a re-solve past its time limit', async () => {
    const v = await check('slow.inp', { quantity: 'converged', timeout_sec: 0.05 });
    expect(v.reason).toMatch(/re-solving slow\.inp: ccx did not finish within 0\.05 s/);
  });
  it('fails truncated, unterminated, wrong-format, binary, empty results and bad params', async () => {
    const p = { quantity: 'max_von_mises', range: { max: 100 } };
    expect((await check('truncated.frd', p)).reason).toMatch(/truncated/);
    expect((await check('noend.frd', p)).reason).toMatch(/no "9999" end marker/);
    expect((await check('wrong.frd', p)).reason).toMatch(/not a CalculiX \.frd/);
    expect((await check('binary.frd', p)).reason).toMatch(/binary content/);
    expect((await check('empty.frd', p)).reason).toMatch(/is empty/);
    expect((await check('ref.frd', { quantity: 'max_von_mises' })).reason).toMatch(
      /give exactly one of range, target, lower_is_better and higher_is_better/,
    );
    expect(
      (await check('ref.frd', { quantity: 'max_von_mises', range: { max: 1 }, mode: 2 })).reason,
    ).toMatch(/params\.mode: unknown param of calculix\.result/);
    expect((await check('ref.frd', { ...p, trust_result: true })).reason).toMatch(
      /did you mean trust_results\?/,
    );
  });
});
