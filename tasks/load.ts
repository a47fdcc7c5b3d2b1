/**
 * Loads task folders. A suite is a folder of task folders (any depth); a task folder holds
 * `task.yaml`, its inputs, `defects/*.yaml` and `hidden/` files for verifiers. A malformed task is
 * reported with its file and field path and left out; the other tasks still load.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { ZodError } from 'zod';
import { TaskLoadError } from './errors.js';
import {
  AlternativeSchema,
  DefectSchema,
  TaskSchema,
  defaultMaxRounds,
  variantActions,
  type Alternative,
  type SolutionStep,
  type Defect,
  type Task,
} from './schema.js';

/** A variant's whole solution, or a load error naming the edit past the reference's end. */
function resolveActions(file: string, v: Parameters<typeof variantActions>[0], task: Task): SolutionStep[] {
  const out = variantActions(v, task.reference);
  if (!Array.isArray(out))
    throw new TaskLoadError(
      file,
      `reference_edits.${out.badRound}`,
      `the reference of task ${task.id} has ${task.reference.length} rounds: number an edit from 1 to ${task.reference.length}`,
    );
  return out;
}

/** A task ready to run. */
export interface LoadedTask {
  task: Task;
  /** Absolute path of the task folder. */
  dir: string;
  /** Defect variants by name (file name without `.yaml`). */
  defects: Record<string, Defect>;
  /** Alternative valid solutions by name (`alternatives/<name>.yaml`). */
  alternatives: Record<string, Alternative>;
}

/** Extra check per criterion (the CLI passes the verifier registry): return an error message or null. */
export type CriterionCheck = (verifier: string, params: Record<string, unknown>) => string | null;

export interface LoadOptions {
  checkCriterion?: CriterionCheck;
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

function firstIssue(file: string, err: ZodError): TaskLoadError {
  const issue = err.issues[0]!;
  const more = err.issues.length > 1 ? ` (and ${err.issues.length - 1} more problem(s))` : '';
  return new TaskLoadError(file, fieldPath(issue.path), issue.message + more, err);
}

async function readYaml(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new TaskLoadError(file, '', `cannot read: ${(e as Error).message}`, e);
  }
  try {
    return parseYaml(text);
  } catch (e) {
    const where = e instanceof YAMLParseError && e.linePos ? ` at line ${e.linePos[0].line}` : '';
    throw new TaskLoadError(file, '', `not valid YAML${where}: ${(e as Error).message.split('\n')[0]}`, e);
  }
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/** `[name, file, parsed YAML]` for each `*.yaml` in `dir` (none when it does not exist). */
async function readVariants(dir: string): Promise<[string, string, unknown][]> {
  const names = (await exists(dir)) ? (await readdir(dir)).filter((n) => n.endsWith('.yaml')).sort() : [];
  const out: [string, string, unknown][] = [];
  for (const n of names) out.push([basename(n, '.yaml'), join(dir, n), await readYaml(join(dir, n))]);
  return out;
}

/** Loads one task folder; throws `TaskLoadError` naming the file and field. */
export async function loadTask(dir: string, opts: LoadOptions = {}): Promise<LoadedTask> {
  const file = join(dir, 'task.yaml');
  const parsed = TaskSchema.safeParse(await readYaml(file));
  if (!parsed.success) throw firstIssue(file, parsed.error);
  const t = parsed.data;
  const task: Task = {
    ...t,
    limits: { ...t.limits, max_rounds: t.limits.max_rounds ?? defaultMaxRounds(t) },
  };

  for (const [i, f] of task.inputs.files.entries())
    if (!(await exists(join(dir, f.src))))
      throw new TaskLoadError(file, `inputs.files[${i}].src`, `file "${f.src}" not found in ${dir}`);
  for (const [i, f] of task.inputs.reference_images.entries())
    if (!(await exists(join(dir, f))))
      throw new TaskLoadError(file, `inputs.reference_images[${i}]`, `file "${f}" not found in ${dir}`);
  if (opts.checkCriterion)
    for (const [i, c] of task.criteria.entries()) {
      const problem = opts.checkCriterion(c.verifier, c.params);
      if (problem) throw new TaskLoadError(file, `criteria[${i}]`, problem);
    }

  const defects: Record<string, Defect> = {};
  for (const [name, dfile, raw] of await readVariants(join(dir, 'defects'))) {
    const d = DefectSchema.safeParse(raw);
    if (!d.success) throw firstIssue(dfile, d.error);
    for (const [i, id] of d.data.fails.entries())
      if (!task.criteria.some((c) => c.id === id))
        throw new TaskLoadError(dfile, `fails[${i}]`, `"${id}" is not a criterion id of task ${task.id}`);
    const { reference_edits: _e, ...rest } = d.data;
    defects[name] = { ...rest, actions: resolveActions(dfile, d.data, task) };
  }
  const alternatives: Record<string, Alternative> = {};
  for (const [name, afile, raw] of await readVariants(join(dir, 'alternatives'))) {
    const a = AlternativeSchema.safeParse(raw);
    if (!a.success) throw firstIssue(afile, a.error);
    if (defects[name])
      throw new TaskLoadError(afile, '', `a defect variant is also named "${name}": names must be unique`);
    alternatives[name] = { description: a.data.description, actions: resolveActions(afile, a.data, task) };
  }
  return { task, dir, defects, alternatives };
}

/** The result of loading a suite: the good tasks, and one error per bad task. */
export interface SuiteLoad {
  tasks: LoadedTask[];
  errors: TaskLoadError[];
}

async function findTaskDirs(dir: string, depth = 0): Promise<string[]> {
  if (await exists(join(dir, 'task.yaml'))) return [dir];
  if (depth > 4) return [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name)))
    if (e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
      out.push(...(await findTaskDirs(join(dir, e.name), depth + 1)));
  return out;
}

/**
 * Loads a task folder or a suite folder. Bad tasks become errors; the rest load.
 * @throws TaskLoadError when `dir` does not exist or holds no task at all.
 */
export async function loadSuite(dir: string, opts: LoadOptions = {}): Promise<SuiteLoad> {
  if (!(await exists(dir))) throw new TaskLoadError(dir, '', 'no such folder');
  const dirs = await findTaskDirs(dir);
  if (dirs.length === 0) throw new TaskLoadError(dir, '', 'no task.yaml found in this folder or below it');
  const tasks: LoadedTask[] = [];
  const errors: TaskLoadError[] = [];
  for (const d of dirs) {
    try {
      tasks.push(await loadTask(d, opts));
    } catch (e) {
      if (e instanceof TaskLoadError) errors.push(e);
      else throw e;
    }
  }
  const seen = new Map<string, string>();
  for (const t of tasks) {
    const prev = seen.get(t.task.id);
    if (prev)
      errors.push(
        new TaskLoadError(
          join(t.dir, 'task.yaml'),
          'id',
          `duplicate task id "${t.task.id}" (also in ${relative(dir, prev) || prev})`,
        ),
      );
    seen.set(t.task.id, t.dir);
  }
  return { tasks: tasks.filter((t) => seen.get(t.task.id) === t.dir), errors };
}
