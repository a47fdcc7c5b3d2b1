/**
 * `data.values` with the take-off criteria of tasks/workflows/ifc-edit-takeoff, on the
 * quantities.json its reference wrote in the `qto` sandbox (test/fixtures/data/), on valid variants
 * of it (another layout of the same numbers, values within tolerance, a CSV table) and on defective
 * ones that must fail for the intended reason (millimetres, the unedited model, a missing key,
 * numbers written as strings, broken JSON).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { DataValuesParams, lookup, parseCsvTable, pathKeys } from '../../verifiers/data/index.js';
import { criterionProblem, verifyAll, verifyCriterion, type RunTool } from '../../verifiers/index.js';
import { verifierRules } from '../../verifiers/index.js';
import { tempDir, writeFiles } from '../helpers/artifacts.js';

const FIX = path.resolve('test/fixtures/data');
/** data.values runs no tool container. */
const noTool: RunTool = () => Promise.reject(new Error('data.values runs no tool'));

interface Quantities {
  storeys: Record<string, Record<string, number>>;
  [k: string]: unknown;
}

let task: LoadedTask;
let dir: { path: string } & AsyncDisposable;
let refText: string;
let n = 0;

const ref = (): Quantities => JSON.parse(refText) as Quantities;

/** Writes `content` as quantities.json of a fresh artifacts folder and runs the task's criteria. */
async function check(
  content: string | Quantities,
): Promise<Record<string, { passed: boolean; score: number; reason: string; measured?: unknown }>> {
  const art = path.join(dir.path, `a${n++}`);
  await writeFiles(art, {
    'quantities.json': typeof content === 'string' ? content : JSON.stringify(content),
  });
  const t = { ...task.task, criteria: task.task.criteria.filter((c) => c.verifier === 'data.values') };
  const vs = await verifyAll({ artifactsDir: art, taskDir: task.dir, runTool: noTool }, t);
  return Object.fromEntries(vs.map((v) => [v.criterion, v]));
}

/** Runs one `data.values` criterion on `files[deliverable]`. */
async function one(files: Record<string, string>, deliverable: string, params: Record<string, unknown>) {
  const art = path.join(dir.path, `b${n++}`);
  await writeFiles(art, files);
  return verifyCriterion(
    { artifactsDir: art, taskDir: FIX, runTool: noTool },
    { id: 'v', verifier: 'data.values', role: 'check', deliverable, params },
  );
}

beforeAll(async () => {
  task = await loadTask(path.resolve('tasks/workflows/ifc-edit-takeoff'), {
    verifiers: verifierRules,
  });
  dir = await tempDir('data-values');
  refText = await readFile(path.join(FIX, 'ifc-edit-takeoff-quantities.json'), 'utf8');
});
afterAll(async () => {
  await dir[asyncDispose]();
});

describe('data.values on the ifc-edit-takeoff take-off', () => {
  it('passes the quantities.json the reference wrote', async () => {
    const v = await check(refText);
    expect(v['wall-quantities'], v['wall-quantities']?.reason).toMatchObject({ passed: true, score: 1 });
    expect(v.counts, v.counts?.reason).toMatchObject({ passed: true, score: 1 });
    expect(v['wall-quantities']?.measured).toMatchObject({ 'storeys.Level 0.wall_area': 93.9 });
    expect(v['wall-quantities']?.reason).toMatch(
      /6\/6 value\(s\) match: storeys\.Level 0\.wall_length = 32 m/,
    );
  });

  it('passes a valid variant: keys reordered, extra keys, values inside the ±0.01 tolerance', async () => {
    const q = ref();
    const l0 = q.storeys['Level 0']!;
    q.storeys = {
      'Level 1': { ...q.storeys['Level 1']!, slab_area: 60 },
      'Level 0': { door_count: 1, wall_area: 93.905, wall_volume: 18.7751, wall_length: 32, wall_count: 4 },
    };
    expect(l0.wall_area).toBe(93.9);
    const v = await check({ ...q, generated_by: 'another script' });
    expect(v['wall-quantities'], v['wall-quantities']?.reason).toMatchObject({ passed: true });
    expect(v.counts, v.counts?.reason).toMatchObject({ passed: true });
  });

  it('fails a take-off in millimetres, naming each value and the factor it is off by', async () => {
    const q = ref();
    for (const s of Object.values(q.storeys)) {
      s.wall_length! *= 1e3;
      s.wall_area! *= 1e6;
      s.wall_volume! *= 1e9;
    }
    const v = await check(q);
    expect(v['wall-quantities']).toMatchObject({ passed: false, score: 0 });
    expect(v['wall-quantities']?.reason).toMatch(
      /0\/6 value\(s\) match; 6 mismatches: storeys\.Level 0\.wall_length = 32000 m, expected 32 ± 0\.01 m \(off by 31968 m; ×1000: a unit mix-up\?\)/,
    );
    expect(v['wall-quantities']?.reason).toMatch(
      /wall_area = 93900000 m², expected 93\.9 ± 0\.01 m² \(off by 93899900 m²; ×1000000/,
    );
    expect(v['wall-quantities']?.reason).toMatch(/wall_volume = 18780000000 m³, .*; ×1000000000/);
    expect(v.counts, v.counts?.reason).toMatchObject({ passed: true });
  });

  it('fails the take-off of the unedited model on exactly the values the door changes', async () => {
    const q = ref();
    Object.assign(q.storeys['Level 0']!, { wall_area: 96, wall_volume: 19.2, door_count: 0 });
    const v = await check(q);
    expect(v['wall-quantities']).toMatchObject({ passed: false, score: 4 / 6 });
    expect(v['wall-quantities']?.reason).toMatch(
      /4\/6 value\(s\) match; 2 mismatches: storeys\.Level 0\.wall_area = 96 m², expected 93\.9 ± 0\.01 m² \(off by 2\.1 m²\); storeys\.Level 0\.wall_volume = 19\.2 m³, expected 18\.78 ± 0\.01 m³ \(off by 0\.42 m³\)$/,
    );
    expect(v.counts).toMatchObject({ passed: false, score: 3 / 4 });
    expect(v.counts?.reason).toMatch(/storeys\.Level 0\.door_count = 0, expected 1 \(off by 1\)$/);
  });

  it('fails a missing storey or key and says which keys there are', async () => {
    const q = ref();
    q.storeys = { 'Level 0': q.storeys['Level 0']!, L1: q.storeys['Level 1']! };
    delete q.storeys['Level 0']!.door_count;
    const v = await check(q);
    expect(v.counts?.reason).toMatch(
      /storeys\.Level 0\.door_count: no "door_count" in storeys\.Level 0 \(keys: wall_count, wall_length, wall_area, wall_volume\)/,
    );
    expect(v.counts?.reason).toMatch(
      /storeys\.Level 1\.wall_count: no "Level 1" in storeys \(keys: Level 0, L1\)/,
    );
    expect(v.counts?.measured).toMatchObject({ 'storeys.Level 0.door_count': null });
  });

  it('refuses numbers written as strings, and broken or empty JSON', async () => {
    const strings = refText.replace('"wall_area": 93.9', '"wall_area": "93.9"');
    expect(strings).not.toBe(refText);
    const v = await check(strings);
    expect(v['wall-quantities']?.reason).toMatch(
      /storeys\.Level 0\.wall_area: is the string "93\.9", not a number/,
    );
    const broken = await check(refText.slice(0, 200));
    expect(broken.counts).toMatchObject({ passed: false, score: 0 });
    expect(broken.counts?.reason).toMatch(/^quantities\.json: not valid JSON: /);
    expect((await check('')).counts?.reason).toMatch(/quantities\.json is empty/);
  });
});

describe('data.values on CSV, pointers, ranges and params', () => {
  it('reads a CSV table by row key and column, with quoted fields', async () => {
    const csv = await readFile(path.join(FIX, 'ifc-edit-takeoff-quantities.csv'), 'utf8');
    const v = await one({ 'q.csv': csv }, 'q.csv', {
      abs_tol: 0.01,
      values: [
        { path: 'Level 0.wall_area', expected: 93.9 },
        { path: '/Level 1/door_count', expected: 0 },
        { path: '1.wall_volume', expected: 19.2 },
      ],
    });
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    const bad = await one({ 'q.csv': csv }, 'q.csv', {
      values: [
        { path: 'Level 0.note', expected: 1 },
        { path: 'Level 2.wall_area', expected: 1 },
      ],
    });
    expect(bad.reason).toMatch(/Level 0\.note: cell "east wall, door D-01" is not a number/);
    expect(bad.reason).toMatch(/Level 2\.wall_area: no row "Level 2" \(rows: Level 0, Level 1\)/);
  });

  it('resolves JSON pointers with escapes and list indices, and checks ranges and relative tolerances', async () => {
    const doc = JSON.stringify({ 'a/b': { 'c.d': [1, { x: 105 }] }, y: 0.5 });
    const v = await one({ 'd.json': doc }, 'd.json', {
      values: [
        { path: '/a~1b/c.d/1/x', expected: 100, rel_tol: 0.05 },
        { path: 'a/b.c\\.d.0', expected: 1 },
        { path: 'y', min: 0, max: 1 },
      ],
    });
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    const out = await one({ 'd.json': doc }, 'd.json', {
      values: [
        { path: 'y', max: 0.4 },
        { path: '/a~1b/c.d/5', expected: 1 },
      ],
    });
    expect(out.reason).toMatch(/2 mismatches: y = 0\.5, above max 0\.4/);
    expect(out.reason).toMatch(/\/a~1b\/c\.d\/5: a\/b\.c\.d is a list of 2, no item "5"/);
  });

  it('refuses a misspelled tolerance instead of using the default, naming the closest key', async () => {
    const doc = { 'd.json': '{"y": 1.004}' };
    const typo = await one(doc, 'd.json', { abs_tl: 0.01, values: [{ path: 'y', expected: 1 }] });
    expect(typo).toMatchObject({ passed: false, score: 0 });
    expect(typo.reason).toMatch(
      /task error: params\.abs_tl: unknown param of data\.values — did you mean abs_tol\?/,
    );
    const inner = await one(doc, 'd.json', { values: [{ path: 'y', expected: 1, rel_tl: 0.01 }] });
    expect(inner.reason).toMatch(/params\.values\[0\]\.rel_tl: unknown param .* did you mean rel_tol\?/);
  });

  it('rejects params without a target, and splits paths as documented', () => {
    expect(DataValuesParams.safeParse({ values: [{ path: 'x' }] }).success).toBe(false);
    expect(criterionProblem('data.values', { values: [] })?.message).toMatch(
      /invalid params for data\.values/,
    );
    expect(pathKeys('/a~1b/c~0d')).toEqual(['a/b', 'c~d']);
    expect(pathKeys('storeys.Level 0.wall\\.area')).toEqual(['storeys', 'Level 0', 'wall.area']);
    const t = parseCsvTable('k;v\r\nx;"1"\r\n', ';');
    expect('error' in t ? t.error : lookup(t, 'x.v', true)).toEqual({ ok: true, value: 1 });
    expect(parseCsvTable('"unclosed,1\n')).toEqual({ error: 'a quoted field is not closed' });
  });
});
