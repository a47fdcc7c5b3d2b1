/**
 * Loads task folders. A suite is a folder of task folders (any depth); a task folder holds
 * `task.yaml`, its inputs, `defects/*.yaml` and `hidden/` files for verifiers. A malformed task is
 * reported with its file and field path and left out; the other tasks still load.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import type { ZodError } from 'zod';
import { TaskLoadError, type TaskProblem } from './errors.js';
import { checkTaskFile, folderRel, taskFolderFiles } from './files.js';
import { actionProblems, breaksAtProblems, taskReferenceProblems } from './references.js';
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
import { readTaskYaml } from './yaml.js';

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

/**
 * What the loader asks of the verifier registry (the CLI passes `verifierRules` from verifiers/):
 * a criterion's problem (unknown verifier, unknown or invalid param, with its path inside the
 * criterion, e.g. `params.abs_tl`), and the task-folder files its params name.
 */
export interface CriterionRules {
  problem(verifier: string, params: Record<string, unknown>): { path: string; message: string } | null;
  taskFiles(verifier: string, params: Record<string, unknown>): { path: string; file: string }[];
}

export interface LoadOptions {
  /** Check criteria against the verifiers; without it only the task format is checked. */
  verifiers?: CriterionRules;
}

/** `['criteria', 3, 'params', 'abs_tl']` → `criteria[3].params.abs_tl`: how every task problem names its field. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

function zodProblems(file: string, err: ZodError): TaskProblem[] {
  return err.issues.map((i) => ({ file, field: fieldPath(i.path), message: i.message }));
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
  for (const n of names) out.push([basename(n, '.yaml'), join(dir, n), await readTaskYaml(join(dir, n))]);
  return out;
}

/** Problems of task.yaml beyond its schema: files, references, criteria against the verifiers. */
async function taskProblems(
  file: string,
  dir: string,
  task: Task,
  opts: LoadOptions,
): Promise<TaskProblem[]> {
  const out: TaskProblem[] = taskReferenceProblems(task).map((p) => ({ file, ...p }));
  /** Files task.yaml names: their problems are reported at the field, not again by the walk. */
  const named = new Set<string>();
  const check = async (field: string, rel: string, folder = false, missing?: string) => {
    named.add(folderRel(dir, rel));
    const problem = await checkTaskFile(dir, rel, { folder });
    if (problem)
      out.push({ file, field, message: missing && problem.kind === 'missing' ? missing : problem.message });
  };
  for (const [i, f] of task.inputs.files.entries()) await check(`inputs.files[${i}].src`, f.src);
  for (const [i, f] of task.inputs.reference_images.entries())
    await check(`inputs.reference_images[${i}]`, f);
  if (opts.verifiers)
    for (const [i, c] of task.criteria.entries()) {
      const problem = opts.verifiers.problem(c.verifier, c.params);
      if (problem) out.push({ file, field: `criteria[${i}].${problem.path}`, message: problem.message });
      for (const tf of problem ? [] : opts.verifiers.taskFiles(c.verifier, c.params))
        await check(
          `criteria[${i}].${tf.path}`,
          tf.file,
          true,
          `file "${tf.file}" not found in the task folder ${dir} (${c.verifier} reads it; verifiers see hidden/ files, agents do not)`,
        );
    }
  // Everything else in the folder (hidden/ files, variants): what `submit` packs must be readable.
  const walk = await taskFolderFiles(dir);
  out.push(...walk.problems.filter((p) => !named.has(folderRel(dir, relative(dir, p.file)))));
  return out;
}

/** A variant's solution (its actions, or the reference with edits) and the problems found in it. */
function variantSolution(
  vfile: string,
  v: Parameters<typeof variantActions>[0],
  task: Task,
): { actions: SolutionStep[]; problems: TaskProblem[] } {
  const out = variantActions(v, task.reference);
  if (!Array.isArray(out))
    return {
      actions: [],
      problems: [
        {
          file: vfile,
          field: `reference_edits.${out.badRound}`,
          message: `the reference of task ${task.id} has ${task.reference.length} rounds: number an edit from 1 to ${task.reference.length}`,
        },
      ],
    };
  const problems = v.actions
    ? actionProblems(task, out, (r) => `actions[${r}]`)
    : Object.entries(v.reference_edits ?? {}).flatMap(([k, step]) =>
        step === null ? [] : actionProblems(task, [step], () => `reference_edits.${k}`),
      );
  return { actions: out, problems: problems.map((p) => ({ file: vfile, ...p })) };
}

/**
 * Loads one task folder. Throws `TaskLoadError` naming the file and field of the first problem,
 * with every problem found in `problems` (task.yaml and all its variants are checked before it
 * throws, so `tasks validate` can list them all).
 */
export async function loadTask(dir: string, opts: LoadOptions = {}): Promise<LoadedTask> {
  const file = join(dir, 'task.yaml');
  const parsed = TaskSchema.safeParse(await readTaskYaml(file));
  if (!parsed.success) throw TaskLoadError.of(zodProblems(file, parsed.error), parsed.error);
  const t = parsed.data;
  const task: Task = {
    ...t,
    limits: { ...t.limits, max_rounds: t.limits.max_rounds ?? defaultMaxRounds(t) },
  };
  const problems = await taskProblems(file, dir, task, opts);

  const defects: Record<string, Defect> = {};
  for (const [name, dfile, raw] of await readVariants(join(dir, 'defects'))) {
    const d = DefectSchema.safeParse(raw);
    if (!d.success) {
      problems.push(...zodProblems(dfile, d.error));
      continue;
    }
    for (const [i, id] of d.data.fails.entries())
      if (!task.criteria.some((c) => c.id === id))
        problems.push({
          file: dfile,
          field: `fails[${i}]`,
          message: `"${id}" is not a criterion id of task ${task.id} (ids: ${task.criteria.map((c) => c.id).join(', ')})`,
        });
    problems.push(...breaksAtProblems(task, d.data.breaks_at).map((p) => ({ file: dfile, ...p })));
    const sol = variantSolution(dfile, d.data, task);
    problems.push(...sol.problems);
    const { reference_edits: _e, ...rest } = d.data;
    defects[name] = { ...rest, actions: sol.actions };
  }
  const alternatives: Record<string, Alternative> = {};
  for (const [name, afile, raw] of await readVariants(join(dir, 'alternatives'))) {
    const a = AlternativeSchema.safeParse(raw);
    if (!a.success) {
      problems.push(...zodProblems(afile, a.error));
      continue;
    }
    if (defects[name])
      problems.push({
        file: afile,
        field: '',
        message: `a defect variant is also named "${name}": names must be unique`,
      });
    const sol = variantSolution(afile, a.data, task);
    problems.push(...sol.problems);
    alternatives[name] = { description: a.data.description, actions: sol.actions };
  }
  if (problems.length > 0) throw TaskLoadError.of(problems);
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
