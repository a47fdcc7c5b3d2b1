/** Task loading: defaults, and errors that name the file, the field path and what was expected. */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifierRules } from '../../verifiers/index.js';
import { defaultMaxRounds, loadSuite, loadTask, taskJsonSchema, TaskLoadError } from '../../tasks/index.js';
import { STARTER } from '../helpers/episode.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A copy of the openscad starter task with its task.yaml edited by `edit`. */
async function variant(edit: (yaml: string) => string, name = 'openscad-plate'): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'engiloop-tasks-'));
  dirs.push(root);
  const dir = join(root, name);
  await cp(join(STARTER, 'openscad-plate'), dir, { recursive: true });
  const file = join(dir, 'task.yaml');
  await writeFile(file, edit(await readFile(file, 'utf8')));
  return dir;
}

async function loadError(dir: string): Promise<TaskLoadError> {
  const e = await loadTask(dir, { verifiers: verifierRules }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(TaskLoadError);
  return e as TaskLoadError;
}

describe('loadTask', () => {
  it('fills defaults: max rounds by interface and type, history window 15', async () => {
    const { task } = await loadTask(join(STARTER, 'openscad-plate'));
    expect(task.limits.max_rounds).toBe(100);
    expect(task.history_window).toBe(15);
    expect(defaultMaxRounds({ interface: 'gui', type: 'single-software' })).toBe(200);
    expect(defaultMaxRounds({ interface: 'cli', type: 'multi-software' })).toBe(150);
    expect(defaultMaxRounds({ interface: 'gui', type: 'open-ended' })).toBe(300);
  });

  it('a wrong type names the file and the field path', async () => {
    const dir = await variant((y) =>
      y.replace('interface: cli', 'interface: cli\nlimits:\n  max_rounds: lots'),
    );
    const e = await loadError(dir);
    expect(e.file).toBe(join(dir, 'task.yaml'));
    expect(e.field).toBe('limits.max_rounds');
    expect(e.message).toMatch(/task\.yaml: limits\.max_rounds: .*number/i);
  });

  it('a bad enum value lists what was expected', async () => {
    const e = await loadError(await variant((y) => y.replace('domain: cad', 'domain: plumbing')));
    expect(e.field).toBe('domain');
    expect(e.message).toMatch(/cad.*cae.*cam/);
  });

  it('a missing required field is named', async () => {
    const e = await loadError(
      await variant((y) => y.replace(/^objective: \|[\s\S]*?(?=^environment:)/m, '')),
    );
    expect(e.field).toBe('objective');
  });

  it('invalid YAML gives the line', async () => {
    const e = await loadError(await variant((y) => y.replace('title:', 'title: [unclosed')));
    expect(e.message).toMatch(/not valid YAML at line \d+/);
  });

  it('a criterion naming an undeclared deliverable is refused', async () => {
    const e = await loadError(
      await variant((y) =>
        y.replace(
          'deliverable: part.stl\n    params: { property: manifold }',
          'deliverable: other.stl\n    params: { property: manifold }',
        ),
      ),
    );
    expect(e.field).toBe('criteria[1].deliverable');
    expect(e.message).toMatch(/not a declared deliverable/);
  });

  it('an unknown verifier and bad verifier params are refused at load time', async () => {
    const e1 = await loadError(
      await variant((y) => y.replace('verifier: file.format', 'verifier: file.nope')),
    );
    expect(e1.field).toBe('criteria[0].verifier');
    expect(e1.message).toMatch(/file\.nope/);
    const e2 = await loadError(
      await variant((y) =>
        y.replace('{ property: genus, expected: 4 }', '{ property: genus, expected: four }'),
      ),
    );
    expect(e2.field).toBe('criteria[4].params.expected');
    expect(e2.message).toMatch(/params/);
  });

  it('a defect naming an unknown criterion is refused, naming the defect file', async () => {
    const dir = await variant((y) => y);
    await writeFile(
      join(dir, 'defects', 'bad.yaml'),
      'description: x\nfails: [nope]\nactions:\n  - { type: shell, command: "true" }\n',
    );
    const e = await loadError(dir);
    expect(e.file).toBe(join(dir, 'defects', 'bad.yaml'));
    expect(e.field).toBe('fails[0]');
  });

  it('a variant can be the reference with rounds replaced or dropped, and an edit past its end is named', async () => {
    const dir = await variant((y) => y);
    const file = join(dir, 'defects', 'edited.yaml');
    const head = 'description: x\nfails: [volume]\n';
    await writeFile(file, `${head}reference_edits:\n  1: { type: shell, command: "echo one" }\n  2: null\n`);
    const lt = await loadTask(dir, { verifiers: verifierRules });
    const ref = lt.task.reference;
    expect(lt.defects.edited?.actions).toEqual([{ type: 'shell', command: 'echo one' }, ...ref.slice(2)]);
    expect(lt.defects.edited).not.toHaveProperty('reference_edits');

    await writeFile(file, `${head}reference_edits:\n  ${ref.length + 1}: null\n`);
    const past = await loadError(dir);
    expect([past.file, past.field]).toEqual([file, `reference_edits.${ref.length + 1}`]);
    expect(past.message).toMatch(`has ${ref.length} rounds`);

    await writeFile(
      file,
      `${head}reference_edits:\n  1: null\nactions:\n  - { type: shell, command: "true" }\n`,
    );
    expect((await loadError(dir)).message).toMatch(/either actions .* or reference_edits/);
  });

  it('a missing input file is named', async () => {
    const e = await loadError(
      await variant((y) =>
        y.replace('environment:', 'inputs:\n  files:\n    - src: drawing.dxf\nenvironment:'),
      ),
    );
    expect(e.field).toBe('inputs.files[0].src');
    expect(e.message).toMatch(/drawing\.dxf/);
  });
});

describe('loadSuite', () => {
  it('keeps loading the other tasks when one is malformed', async () => {
    const bad = await variant((y) => y.replace('type: single-software', 'type: sorcery'), 'broken');
    const root = join(bad, '..');
    await cp(join(STARTER, 'verilog-counter'), join(root, 'verilog-counter'), { recursive: true });
    const { tasks, errors } = await loadSuite(root, { verifiers: verifierRules });
    expect(tasks.map((t) => t.task.id)).toEqual(['verilog-counter']);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain(join(root, 'broken', 'task.yaml'));
    expect(errors[0]!.field).toBe('type');
  });

  it('a folder with no task is an error', async () => {
    const root = await mkdtemp(join(tmpdir(), 'engiloop-empty-'));
    dirs.push(root);
    await mkdir(join(root, 'x'));
    await expect(loadSuite(root)).rejects.toThrow(/no task\.yaml/);
  });

  it('the JSON Schema describes the task fields', () => {
    const s = taskJsonSchema() as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(s.properties)).toEqual(
      expect.arrayContaining(['id', 'domain', 'type', 'interface', 'objective', 'criteria', 'reference']),
    );
    expect(s.required).toEqual(expect.arrayContaining(['id', 'objective', 'deliverables', 'criteria']));
  });
});
