/**
 * A task author cannot get it wrong silently: a misspelled verifier param is a load error naming
 * the file, the criterion, the key and the closest valid key; every sandbox, stage and hidden file a
 * task names must exist; `tasks validate` lists every problem; `engiloop schema` checks params by
 * the verifier a criterion names. Tasks here are copies of the starter tasks, edited.
 */
import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTask, TaskLoadError } from '../../tasks/index.js';
import { criterionJsonSchemas, verifierRules, verifyCriterion } from '../../verifiers/index.js';
import { cli } from '../helpers/cli.js';
import { STARTER } from '../helpers/episode.js';

const WORKFLOWS = join(STARTER, '..', 'workflows');
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A copy of task folder `src` with its task.yaml edited by `edit`. */
async function copyOf(src: string, edit: (yaml: string) => string = (y) => y): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'engiloop-validate-'));
  dirs.push(root);
  const dir = join(root, src.split('/').at(-1)!);
  await cp(src, dir, { recursive: true });
  const file = join(dir, 'task.yaml');
  await writeFile(file, edit(await readFile(file, 'utf8')));
  return dir;
}

async function problems(dir: string): Promise<TaskLoadError> {
  const e = await loadTask(dir, { verifiers: verifierRules }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(TaskLoadError);
  return e as TaskLoadError;
}

describe('misspelled and unknown verifier params', () => {
  it('abs_tl is a load error naming the file, criterion, key and the closest key', async () => {
    const dir = await copyOf(join(STARTER, 'openscad-plate'), (y) =>
      y.replace(
        '{ property: volume, expected: 23322.51, rel_tol: 0.005 }',
        '{ property: volume, expected: 23322.51, abs_tl: 100 }',
      ),
    );
    const e = await problems(dir);
    expect(e.file).toBe(join(dir, 'task.yaml'));
    expect(e.field).toBe('criteria[3].params.abs_tl');
    expect(e.message).toContain(
      'criteria[3].params.abs_tl: unknown param of stl.geometry — did you mean abs_tol?',
    );
  });

  it('a nested key and a key no verifier knows are named too', async () => {
    const nested = await problems(
      await copyOf(join(STARTER, 'eda-ngspice-highpass'), (y) =>
        y.replace('range: { min: -0.5', 'range: { mn: -0.5'),
      ),
    );
    expect(nested.field).toMatch(/^criteria\[\d\]\.params\.range\.mn$/);
    expect(nested.message).toMatch(/did you mean min\?/);
    const far = await problems(
      await copyOf(join(STARTER, 'openscad-plate'), (y) =>
        y.replace('{ property: genus, expected: 4 }', '{ property: genus, expected: 4, colour: red }'),
      ),
    );
    expect(far.field).toBe('criteria[4].params.colour');
    expect(far.message).toMatch(/unknown param of stl\.geometry \(known here: property, expected/);
  });

  it('a misspelled verifier name gets the closest one', async () => {
    const e = await problems(
      await copyOf(join(STARTER, 'openscad-plate'), (y) =>
        y.replace('verifier: file.format', 'verifier: file.fromat'),
      ),
    );
    expect(e.field).toBe('criteria[0].verifier');
    expect(e.message).toMatch(/did you mean file\.format\?/);
  });

  it('at verify time an unknown key fails the verdict instead of being dropped', async () => {
    const v = await verifyCriterion(
      { artifactsDir: tmpdir(), taskDir: tmpdir(), runTool: () => Promise.reject(new Error('no tool')) },
      {
        id: 'v',
        verifier: 'stl.geometry',
        role: 'check',
        params: { property: 'volume', expected: 1, abs_tl: 1 },
      },
    );
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(/params\.abs_tl: unknown param of stl\.geometry — did you mean abs_tol\?/);
  });
});

describe('references inside a task', () => {
  it('an input for an unknown sandbox is a load error, not an infra_error at run time', async () => {
    const dir = await copyOf(join(STARTER, 'openscad-plate'), (y) =>
      y.replace(
        'environment:',
        'inputs:\n  files:\n    - { src: task.yaml, dest: copy.yaml, sandbox: cad }\nenvironment:',
      ),
    );
    const e = await problems(dir);
    expect(e.field).toBe('inputs.files[0].sandbox');
    expect(e.message).toMatch(/unknown sandbox "cad" \(have: main\)/);
  });

  it('actions, hand-offs and defects naming unknown sandboxes, and breaks_at naming an unknown stage', async () => {
    const dir = await copyOf(join(WORKFLOWS, 'freecad-gmsh-ccx'));
    await writeFile(
      join(dir, 'defects', 'typos.yaml'),
      [
        'description: every reference wrong',
        'fails: [mesh-valid]',
        'breaks_at: { stage: meshing, cause: agent }',
        'actions:',
        '  - { type: shell, sandbox: fem, command: "true" }',
        '  - { type: handoff, from: cad, path: part.step, to: mesher }',
        '  - { type: click, x: 1, y: 2 }',
      ].join('\n'),
    );
    const e = await problems(dir);
    const file = join(dir, 'defects', 'typos.yaml');
    const got = e.problems.filter((p) => p.file === file).map((p) => `${p.field}: ${p.message}`);
    expect(got).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^breaks_at\.stage: "meshing" is not a stage of task freecad-gmsh-ccx \(stages: geometry, mesh, solve/,
        ),
        expect.stringMatching(/^actions\[0\]\.sandbox: unknown sandbox "fem" \(have: cad, fea\)/),
        expect.stringMatching(/^actions\[1\]\.to: unknown sandbox "mesher"/),
        expect.stringMatching(/^actions\[2\]: click is a GUI action; a CLI task takes shell commands/),
      ]),
    );
  });

  it('a hidden testbench that is not in the task folder is named', async () => {
    const dir = await copyOf(join(STARTER, 'verilog-counter'));
    await unlink(join(dir, 'hidden', 'tb_counter.v'));
    const e = await problems(dir);
    expect(e.field).toBe('criteria[1].params.testbench');
    expect(e.message).toMatch(/file "hidden\/tb_counter\.v" not found in the task folder/);
  });

  it('paths that leave the workspace are refused', async () => {
    const e = await problems(
      await copyOf(join(STARTER, 'openscad-plate'), (y) =>
        y.replace(/- path: part\.stl/, '- path: ../part.stl'),
      ),
    );
    expect(e.problems.map((p) => p.field)).toContain('deliverables[0].path');
    expect(e.message).toMatch(/no "\.\."/);
  });
});

describe('tasks validate and schema', () => {
  it('validate prints every problem as file: field: message and exits 2', async () => {
    const dir = await copyOf(join(STARTER, 'openscad-plate'), (y) =>
      y
        .replace(
          '{ property: volume, expected: 23322.51, rel_tol: 0.005 }',
          '{ property: volume, expected: 23322.51, abs_tl: 100 }',
        )
        .replace('{ property: genus, expected: 4 }', '{ property: genus, expected: 4, colour: red }'),
    );
    const r = await cli(['tasks', 'validate', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${join(dir, 'task.yaml')}: criteria[3].params.abs_tl: unknown param of stl.geometry — did you mean abs_tol?`,
    );
    expect(r.stderr).toContain(`${join(dir, 'task.yaml')}: criteria[4].params.colour: unknown param`);
    expect(r.stdout).toMatch(/0 valid, 1 invalid/);
  });

  it('the schema checks params by verifier name, with closed objects', async () => {
    const r = await cli(['schema']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as {
      properties: {
        criteria: {
          items: {
            allOf: { if: unknown; then: { properties: { params: unknown } } }[];
            properties: { verifier: { enum: string[] } };
          };
        };
      };
    };
    const items = s.properties.criteria.items;
    expect(items.properties.verifier.enum).toEqual(
      expect.arrayContaining(['stl.geometry', 'verilog.testbench', 'file.format']),
    );
    expect(items.allOf).toHaveLength(criterionJsonSchemas().length);
    const stl = items.allOf.find((b) => JSON.stringify(b.if).includes('"stl.geometry"'))!;
    const text = JSON.stringify(stl.then.properties.params);
    expect(text).toContain('"abs_tol"');
    expect(text).toContain('"additionalProperties":false');
  });
});
