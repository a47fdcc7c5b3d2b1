/**
 * `kicad.netlist` with the criteria of tasks/gui/kicad-divider, on netlists exported by KiCad 6.0.11's
 * schematic editor when the task's reference and defects were played through the GUI
 * (test/fixtures/eda/kicad-divider*.net), and on variants of the reference edited to be valid
 * another way, or wrong in one precise way.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { comparePinPairs, componentValue, KicadNetlistParams } from '../../verifiers/eda/index.js';
import { criterionProblem, verifyAll, type RunTool } from '../../verifiers/index.js';
import { verifierRules } from '../../verifiers/index.js';
import { tempDir, writeFiles } from '../helpers/artifacts.js';

const FIX = path.resolve('test/fixtures/eda');
const NET = 'divider.net';
/** No tool container is needed: the netlist is parsed in-process. */
const noTool: RunTool = () => Promise.reject(new Error('kicad.netlist runs no tool'));

let task: LoadedTask;
let dir: { path: string } & AsyncDisposable;
let ref: string;

/** Writes `text` as the deliverable of a fresh artifacts folder and runs the task's criteria. */
async function check(
  name: string,
  text: string,
): Promise<Record<string, { passed: boolean; score: number; reason: string; measured?: unknown }>> {
  const art = path.join(dir.path, name);
  await writeFiles(art, { [NET]: text });
  const vs = await verifyAll({ artifactsDir: art, taskDir: task.dir, runTool: noTool }, task.task);
  return Object.fromEntries(vs.map((v) => [v.criterion, v]));
}

/** The reference with one `(comp …)` block replaced by `f(block)`. */
function editComp(text: string, ref: string, f: (block: string) => string): string {
  return text.replace(
    new RegExp(String.raw`    \(comp \(ref "${ref}"\)[\s\S]*?\(tstamps "[0-9a-f-]{36}"\)\)`),
    f,
  );
}

beforeAll(async () => {
  task = await loadTask(path.resolve('tasks/gui/kicad-divider'), { verifiers: verifierRules });
  dir = await tempDir('kicad-netlist');
  ref = await readFile(path.join(FIX, 'kicad-divider.net'), 'utf8');
});
afterAll(async () => {
  await dir[asyncDispose]();
});

describe('kicad.netlist on the kicad-divider task', () => {
  it('passes the netlist the GUI reference exported', async () => {
    const v = await check('ref', ref);
    expect(v.components, v.components?.reason).toMatchObject({ passed: true, score: 1 });
    expect(v.connectivity, v.connectivity?.reason).toMatchObject({
      passed: true,
      score: 1,
      measured: { connectivity: { f1: 1, missing: [], extra: [], absent: [] } },
    });
    expect(v.components?.reason).toMatch(
      /KiCad netlist version E, 3 component\(s\), 3 net\(s\)\): ok components J1, R1, R2/,
    );
  });

  it('passes a valid variant: other net names and order, R2 written 4k7', async () => {
    const text = ref
      .replaceAll('Net-(J1-Pad1)', 'VIN')
      .replaceAll('Net-(J1-Pad3)', '0V')
      .replace('(value "4.7k")', '(value "4k7")')
      .replace(
        /(\(node \(ref "J1"\) \(pin "2"\)[^\n]*\n)(\s*\(node \(ref "R1"\) \(pin "2"\)[^\n]*\n)/,
        '$2$1',
      );
    expect(text).toMatch(/\(name "VIN"\)[\s\S]*\(value "4k7"\)|\(value "4k7"\)[\s\S]*\(name "VIN"\)/);
    const v = await check('alt', text);
    expect(v.components, v.components?.reason).toMatchObject({ passed: true });
    expect(v.connectivity, v.connectivity?.reason).toMatchObject({ passed: true, score: 1 });
  });

  it('fails the missing-GND-wire defect on connectivity only, naming the missing connection', async () => {
    const v = await check(
      'nognd',
      await readFile(path.join(FIX, 'kicad-divider-missing-gnd-wire.net'), 'utf8'),
    );
    expect(v.components?.passed, v.components?.reason).toBe(true);
    expect(v.connectivity?.passed).toBe(false);
    expect(v.connectivity?.score).toBeCloseTo(8 / 9); // P 1, R 4/5
    expect(v.connectivity?.reason).toMatch(
      /pin-pair F1 0\.889 \(P 1, R 0\.8; need ≥ 1\); missing connections: J1\.3–R2\.2 \(GND\)/,
    );
  });

  it('fails the wrong-R2-value defect on components only, with the value found', async () => {
    const v = await check(
      'value',
      await readFile(path.join(FIX, 'kicad-divider-wrong-r2-value.net'), 'utf8'),
    );
    expect(v.connectivity?.passed, v.connectivity?.reason).toBe(true);
    expect(v.components).toMatchObject({ passed: false, score: 2 / 3 });
    expect(v.components?.reason).toMatch(/FAIL components: R2 value "47k", expected "4\.7k"/);
  });

  it('fails a wrong part (a 2-pin connector as J1) with the part found', async () => {
    const text = editComp(ref, 'J1', (b) => b.replace('(part "Conn_01x03")', '(part "Conn_01x02")'));
    const v = await check('part', text);
    expect(v.components?.passed).toBe(false);
    expect(v.components?.reason).toMatch(/J1 is Connector:Conn_01x02, expected Connector:Conn_01x03/);
  });

  it('fails a short (VIN joined to MID) with the unexpected connections', async () => {
    const text = ref.replace(/\)\)\n    \(net \(code "2"\) \(name "Net-\(J1-Pad2\)"\)/, ')');
    const v = await check('short', text);
    expect(v.connectivity?.passed).toBe(false);
    expect(
      (v.connectivity?.measured as { connectivity: { precision: number; recall: number } }).connectivity,
    ).toMatchObject({
      precision: Number((5 / 11).toFixed(3)),
      recall: 1,
    });
    expect(v.connectivity?.reason).toMatch(/unexpected connections: J1\.1–J1\.2 \(Net-\(J1-Pad1\)\)/);
  });

  it('fails an extra part, and a missing one with its pins on no net', async () => {
    const extra = ref.replace(
      /\)\)\)\n {2}\(libparts/,
      '))\n    (comp (ref "R3") (value "1k") (libsource (lib "Device") (part "R"))))\n  (libparts',
    );
    const e = await check('extra', extra);
    expect(e.components?.reason).toMatch(/extra component R3 \(Device:R 1k\)/);
    expect(e.components).toMatchObject({ passed: false, score: 3 / 4 });

    const missing = editComp(ref, 'R2', () => '').replace(
      /\n\s*\(node \(ref "R2"\) \(pin "\d"\) \(pintype "passive"\)\)/g,
      '',
    );
    const m = await check('missing', missing);
    expect(m.components?.reason).toMatch(/R2 missing/);
    expect(m.connectivity?.reason).toMatch(/pins on no net: R2\.1, R2\.2/);
  });

  it('points to annotation when symbols were exported as R?', async () => {
    const v = await check('unannotated', ref.replaceAll('(ref "R2")', '(ref "R?")'));
    expect(v.components?.passed).toBe(false);
    expect(v.components?.reason).toMatch(/R2 missing.*not annotated, e\.g\. R\?: Tools → Annotate Schematic/);
  });

  it.each([
    [
      'spice',
      '.title KiCad schematic\nR1 VIN MID 10k\n.end\n',
      /not a KiCad netlist: .*SPICE netlist: export from the KiCad tab/,
    ],
    ['orcad', '( { EESchema Netlist Version 1.1 }\n)\n', /not a KiCad netlist: .*OrcadPCB2/],
    ['truncated', 'TRUNCATE', /not a valid S-expression \(truncated or corrupt\)/],
    ['empty', '', /deliverable divider\.net is empty/],
  ])('fails a %s file with the reason, score 0', async (name, text, why) => {
    const v = await check(name, text === 'TRUNCATE' ? ref.slice(0, ref.length / 2) : text);
    for (const id of ['components', 'connectivity']) {
      expect(v[id]).toMatchObject({ passed: false, score: 0 });
      expect(v[id]?.reason).toMatch(why);
    }
  });
});

describe('kicad.netlist helpers and params', () => {
  it('reads component values as numbers', () => {
    expect(componentValue('4.7k')).toBe(4700);
    expect(componentValue('4k7')).toBe(4700);
    expect(componentValue('10 kΩ')).toBe(10_000);
    expect(componentValue('4R7')).toBe(4.7);
    expect(componentValue('100n')).toBeCloseTo(1e-7, 20);
    expect(componentValue('2M2')).toBe(2_200_000);
    expect(componentValue('1m')).toBe(0.001);
    expect(componentValue('4.7k7')).toBeUndefined();
    expect(componentValue('Conn_01x03')).toBeUndefined();
  });

  it('scores pin pairs among the listed pins only', () => {
    const want = { A: ['R1.1', 'R2.1', 'J1.1'], B: ['R1.2'] };
    expect(
      comparePinPairs(want, [
        { name: 'n', pins: ['J1.1', 'R2.1', 'R1.1', 'X9.9'] },
        { name: 'm', pins: ['R1.2'] },
      ]).f1,
    ).toBe(1);
    const split = comparePinPairs(want, [
      { name: 'n', pins: ['R1.1', 'R2.1'] },
      { name: 'm', pins: ['J1.1', 'R1.2'] },
    ]);
    expect(split).toMatchObject({ precision: 0.5, recall: 1 / 3, absent: [] });
    expect(split.missing).toEqual(['J1.1–R1.1 (A)', 'J1.1–R2.1 (A)']);
    expect(split.extra).toEqual(['J1.1–R1.2 (m)']);
  });

  it('refuses params without a check or with a malformed pin or part', () => {
    expect(KicadNetlistParams.safeParse({}).success).toBe(false);
    expect(criterionProblem('kicad.netlist', { connectivity: { nets: { A: ['R1-1'] } } })?.message).toMatch(
      /a pin such as R1\.2/,
    );
    expect(
      criterionProblem('kicad.netlist', { components: { expected: { R1: { part: 'R' } } } })?.message,
    ).toMatch(/Library:Part/);
  });
});
