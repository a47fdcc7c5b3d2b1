/**
 * `spice.measure`: netlists re-simulated by the real ngspice in a tool container, under the task's
 * own control block. The agent's control block, analyses and measurements are stripped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../actors/sandbox/index.js';
import { prepareNetlist, readMeasurement, RESULTS_MARKER } from '../../verifiers/eda/netlist.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const lowpass = (r: string, c: string) =>
  `* RC low-pass\nV1 in 0 DC 0 AC 1\nR1 in out ${r}\nC1 out 0 ${c}\n.end\n`;
const F3DB = { control: 'ac dec 200 1 1meg\nmeas ac f3db WHEN vdb(out)=-3.0103 FALL=1', measure: 'f3db' };
const LF = { control: 'ac dec 50 1 1meg\nmeas ac gain_lf FIND vdb(out) AT=10', measure: 'gain_lf' };

const kit = toolKit('verifiers-ngspice');
let dir: { path: string } & AsyncDisposable;

beforeAll(async () => {
  dir = await tempDir('ngspice');
  await writeFiles(dir.path, {
    'reference.cir': lowpass('1.59k', '100n'),
    // A different valid design: 3.3 kΩ with 48.2 nF → 1000.6 Hz.
    'alternative.cir': `* alt\nVin in 0 AC 1\nRa in mid 1.65k\nRb mid out 1.65k\nC1 out 0 48.2n\n.control\nac lin 10 1 10\n.endc\n.end\n`,
    'wrong.cir': lowpass('15.9k', '100n'),
    'close.cir': lowpass('1.75k', '100n'), // 909 Hz: 9 % off
    'highpass.cir': `* hp\nV1 in 0 DC 0 AC 1\nC1 in out 100n\nR1 out 0 1.59k\n.end\n`,
    // Tries to fake the result: prints f3db = 1000 from its own .meas and control block.
    'fake.cir':
      `* fake\nV1 in 0 DC 0 AC 1\nR1 in out 15.9k\nC1 out 0 100n\n.ac dec 10 1 1meg\n.meas ac f3db param='1000'\n` +
      `.save v(in)\n.control\nrun\necho f3db = 1.000000e+03\n.endc\n.end\n* after end\nR9 out 0 1\n`,
    'broken.cir': `* broken\nV1 in 0 DC 0 AC 1\nR1 in out\nQ1 a b\n.end\n`,
    'empty.cir': '',
  });
});
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

function measure(
  deliverable: string,
  params: Record<string, unknown>,
  role: 'quality' | 'feasibility' = 'quality',
): Promise<Verdict> {
  return verifyCriterion(contextFor(kit, dir.path), {
    id: 'm',
    verifier: 'spice.measure',
    deliverable,
    role,
    params,
  });
}

describe('spice.measure with a target (quality)', () => {
  it('scores the reference 1 at 1001 Hz', async () => {
    const v = await measure('reference.cir', { ...F3DB, target: 1000 });
    expect(v, v.reason).toMatchObject({ passed: true, score: 1, expected: 1000 });
    expect(v.measured as number).toBeCloseTo(1000.97, 0);
  });
  it('scores an alternative valid design 1', async () => {
    const v = await measure('alternative.cir', { ...F3DB, target: 1000 });
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
  });
  it('scores 9 % off between 0 and 1, and 10× off 0', async () => {
    const close = await measure('close.cir', { ...F3DB, target: 1000 });
    expect(close.score).toBeGreaterThan(0.55);
    expect(close.score).toBeLessThan(0.65);
    const wrong = await measure('wrong.cir', { ...F3DB, target: 1000 });
    expect(wrong).toMatchObject({ passed: false, score: 0 });
    expect(wrong.reason).toMatch(/f3db = 100\.09\d* vs target 1000: 90 % off → score 0/);
  });
  it('cannot be faked by .meas, .save or echo in the netlist', async () => {
    const v = await measure('fake.cir', { ...F3DB, target: 1000 });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.measured as number).toBeCloseTo(100.1, 0);
  });
});

describe('spice.measure with a range (feasibility)', () => {
  it('passes a low-pass gain near 0 dB at 10 Hz', async () => {
    const v = await measure(
      'reference.cir',
      { ...LF, range: { min: -0.5, max: 0.5 }, unit: 'dB' },
      'feasibility',
    );
    expect(v, v.reason).toMatchObject({ passed: true, score: 1, expected: { min: -0.5, max: 0.5 } });
  });
  it('fails a high-pass there, and its f3db measurement fails', async () => {
    const v = await measure('highpass.cir', { ...LF, range: { min: -0.5, max: 0.5 } }, 'feasibility');
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.measured as number).toBeLessThan(-39);
    const f = await measure('highpass.cir', { ...F3DB, target: 1000 });
    expect(f.reason).toMatch(/measurement f3db failed: .*out of interval/);
  });
});

describe('spice.measure fails netlists that do not simulate', () => {
  it("names ngspice's error", async () => {
    const v = await measure('broken.cir', { ...F3DB, target: 1000 });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(/did not simulate: .*(Error|error)/);
  });
  it('fails an empty and a missing netlist', async () => {
    expect((await measure('empty.cir', { ...F3DB, target: 1000 })).reason).toMatch(/is empty/);
    expect((await measure('none.cir', { ...F3DB, target: 1000 })).reason).toMatch(/is missing/);
  });
  it('rejects params that give both or neither of range and target', async () => {
    expect((await measure('reference.cir', { ...F3DB })).reason).toMatch(/exactly one of range and target/);
    expect((await measure('reference.cir', { ...F3DB, target: 1, range: { max: 1 } })).reason).toMatch(
      /exactly one/,
    );
  });
});

describe('netlist preparation', () => {
  it('keeps title and circuit, strips control, analyses, measurements and everything after .end', () => {
    const out = prepareNetlist(
      '* t\nR1 a b 1\n.MEAS ac x param=1\n+ more\n.ac dec 1 1 10\n.Control\nrun\n.endc\nC1 b 0 1n\n.END\nR2 x y 1\n',
      'op',
      'x',
    );
    expect(out).toBe(
      `* t\nR1 a b 1\nC1 b 0 1n\n.control\nop\necho ${RESULTS_MARKER}\nprint x\n.endc\n.end\n`,
    );
  });
  it('reads the value only after the marker', () => {
    expect(readMeasurement(`x = 5\n${RESULTS_MARKER}\nx = 1.5e+03\n`, '', 'x')).toEqual({
      ok: true,
      value: 1500,
    });
    expect(readMeasurement('x = 5\n', 'Error on line 3', 'x')).toMatchObject({ ok: false });
  });
});
