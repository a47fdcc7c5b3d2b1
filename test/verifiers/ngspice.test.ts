/**
 * `spice.measure`: netlists re-simulated by the real ngspice in a tool container, under the task's
 * own control block. The agent's control block, analyses and measurements are stripped; element
 * kinds can be restricted. Forging attempts are in red-team-eda.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { checkNetlist, prepareNetlist, readMeasurement } from '../../verifiers/eda/netlist.js';
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
    // An R/C low-pass built from a subcircuit (allowed: the subcircuit's body is R and C).
    'subckt.cir': `* sub\nV1 in 0 DC 0 AC 1\n.subckt rc a b\nR1 a b 1.59k\nC1 b 0 100n\n.ends\nX1 in out rc\n.end\n`,
    // The same, but the subcircuit's body is a controlled source.
    'subckt-e.cir': `* sub\nV1 in 0 DC 0 AC 1\n.subckt buf a b\nE1 b 0 a 0 1\n.ends\nR1 in mid 1.59k\nC1 mid 0 100n\nX1 mid out buf\n.end\n`,
    'rl.cir': `* RL low-pass\nV1 in 0 DC 0 AC 1\nL1 in out 159.2m\nR1 out 0 1k\n.end\n`,
    'include.cir': `* inc\nV1 in 0 DC 0 AC 1\n.include /usr/share/ngspice/filter.lib\nR1 in out 1.59k\nC1 out 0 100n\n.end\n`,
    'behavioural-r.cir': `* bR\nV1 in 0 DC 0 AC 1\nR1 in out R='1.59k + 0*V(out)'\nC1 out 0 100n\n.end\n`,
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
  it('cannot be faked by .meas, .save or echo in the netlist, and says what it ignored', async () => {
    const v = await measure('fake.cir', { ...F3DB, target: 1000 });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.measured as number).toBeCloseTo(100.1, 0);
    expect(v.reason).toMatch(
      /ignored from the netlist: \.ac \(line 5\), \.meas \(line 6\), \.save \(line 7\), \.control block \(lines 8–11\), 2 line\(s\) after \.end/,
    );
  });
  it('is sealed: the results marker carries a fresh nonce, recorded in the verdict', async () => {
    const a = await measure('reference.cir', { ...F3DB, target: 1000 });
    const b = await measure('reference.cir', { ...F3DB, target: 1000 });
    expect(a.seal).toMatch(/^[0-9a-f]{16}$/);
    expect(b.seal).not.toBe(a.seal);
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

describe('spice.measure with lower_is_better (one-sided quality)', () => {
  it('scores the roll-off at 100 kHz: 1 at ≤ −40 dB, 0 at ≥ −20 dB', async () => {
    const HF = { control: 'ac dec 50 1 1meg\nmeas ac gain_hf FIND vdb(out) AT=100k', measure: 'gain_hf' };
    const v = await measure('reference.cir', {
      ...HF,
      lower_is_better: { full: -40, zero: -20 },
      unit: 'dB',
    });
    // A first-order 1 kHz low-pass is at about −40 dB there.
    expect(v.passed).toBe(true);
    expect(v.score).toBeGreaterThan(0.95);
    expect(v.reason).toMatch(
      /gain_hf = -39\.9\d* dB: lower is better → score (?:1|0\.99\d*) \(1 at ≤ -40 dB, 0 at ≥ -20 dB\)/,
    );
    const close = await measure('close.cir', { ...HF, lower_is_better: { full: -45, zero: -35 } });
    expect(close.score).toBeGreaterThan(0);
    expect(close.score).toBeLessThan(1);
  });
});

describe('spice.measure with allowed_elements', () => {
  const RLCV = { ...F3DB, target: 1000, allowed_elements: ['R', 'C', 'L', 'V'] };
  it('passes R/L/C circuits, also inside a subcircuit', async () => {
    for (const f of ['reference.cir', 'subckt.cir', 'rl.cir']) {
      const v = await measure(f, RLCV);
      expect(v, `${f}: ${v.reason}`).toMatchObject({ passed: true, score: 1 });
    }
  });
  it('fails a subcircuit whose body is a controlled source, naming it', async () => {
    const v = await measure('subckt-e.cir', RLCV);
    expect(v).toMatchObject({ passed: false, score: 0, measured: { refused: 'E1', line: 4 } });
    expect(v.reason).toBe(
      'subckt-e.cir line 4: E1 is a voltage-controlled voltage source (E), not an allowed element (R, C, L, V)',
    );
  });
  it('fails a behavioural R whose value depends on a node voltage', async () => {
    const v = await measure('behavioural-r.cir', RLCV);
    expect(v.reason).toMatch(/line 3: R1 is a behavioural resistor: its value depends on node voltages/);
  });
  it('refuses .include, which would read another file, whatever the elements', async () => {
    const v = await measure('include.cir', { ...F3DB, target: 1000 });
    expect(v.reason).toMatch(/line 3: \.include reads another file: the netlist must be self-contained/);
  });
  it('refuses unknown element letters in the params', async () => {
    expect((await measure('reference.cir', { ...RLCV, allowed_elements: ['R', 'Ω'] })).reason).toMatch(
      /task error: invalid params .*allowed_elements/,
    );
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
    expect((await measure('reference.cir', { ...F3DB })).reason).toMatch(
      /exactly one of range, target, lower_is_better and higher_is_better/,
    );
    expect((await measure('reference.cir', { ...F3DB, target: 1, range: { max: 1 } })).reason).toMatch(
      /exactly one/,
    );
  });
});

describe('netlist preparation', () => {
  it('replaces the title, keeps the circuit, strips control, analyses, measurements and what follows .end', () => {
    const out = prepareNetlist(
      '* t f3db\nR1 a b 1\n.MEAS ac x param=1\n+ more\n.ac dec 1 1 10\n.Control\nrun\n.endc\nC1 b 0 1n\n.END\nR2 x y 1\n',
      { control: 'op', measure: 'x', marker: '@@M-1@@' },
    );
    expect(out.text).toBe(
      '* netlist re-simulated by engiloop spice.measure\nR1 a b 1\nC1 b 0 1n\n.control\nop\necho @@M-1@@\nprint x\n.endc\n.end\n',
    );
    expect(out.ignored).toEqual([
      '.meas (line 3)',
      '.ac (line 5)',
      '.control block (lines 6–8)',
      '1 line(s) after .end',
    ]);
  });
  it('reads the value only after the sealed marker', () => {
    expect(readMeasurement(`x = 5\n@@M-1@@\nx = 1.5e+03\n`, '', 'x', '@@M-1@@')).toEqual({
      ok: true,
      value: 1500,
    });
    expect(readMeasurement('@@M-2@@\nx = 5\n', 'Error on line 3', 'x', '@@M-1@@')).toMatchObject({
      ok: false,
    });
  });
  it('refuses what could supply the number, with the line', () => {
    const check = (body: string, allowed?: string[]) =>
      checkNetlist(`* t\nV1 in 0 AC 1\n${body}\n.end\n`, { measure: 'f3db', allowed })?.reason ?? null;
    expect(check('*# let f3db = 1000')).toMatch(/^line 3: .*control command hidden in a comment/);
    expect(check('.csparam f3db=1000')).toMatch(/^line 3: \.csparam makes control-language vectors/);
    expect(check('.lib models.lib tt')).toMatch(/^line 3: \.lib reads another file/);
    expect(check('R1 in f3db 1k')).toMatch(/R1 uses a node named f3db/);
    expect(check('B1 out 0 V=V(in)', ['R', 'C', 'V'])).toMatch(/B1 is a behavioural source \(B\)/);
    expect(check('.func g(x) {x}', ['R', 'C', 'V'])).toMatch(/\.func defines a behavioural function/);
    expect(check('X1 in out lp', ['R', 'C', 'V'])).toMatch(
      /X1 calls subcircuit lp, which the netlist does not define/,
    );
    expect(check('R1 in out 1k\n+ tc1=0\nC1 out 0 1n', ['R', 'C', 'V'])).toBeNull();
    expect(check('* a comment\nE1 out 0 in 0 1')).toBeNull();
  });
});
