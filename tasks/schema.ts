/**
 * The task format: what a `task.yaml` may hold. Data, validated with zod; `taskJsonSchema()` exports
 * the same rules as JSON Schema so editors can check YAML as it is typed (`engiloop schema`).
 */
import { z } from 'zod';
import {
  MAX_ACTION_TIMEOUT_SEC,
  MAX_DESKTOP_TIMEOUT_SEC,
  MAX_HISTORY_WINDOW,
  MAX_MEMORY_MB,
  MAX_OUTPUT_CAP_BYTES,
  MAX_PIDS,
  MAX_SANDBOX_RETRIES,
  MAX_SETTLE_MS,
  MAX_WALL_CLOCK_SEC,
  MIN_OUTPUT_CAP_BYTES,
  intIn,
  seconds,
} from './limits.js';
import { relPath, workdirPath } from './paths.js';

function isRegExp(s: string): boolean {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

/**
 * A verifier's own time limit (`timeout_sec`, `parse_timeout_sec`, at any depth of its params)
 * ends up in a Node timer too: past the maximum it is a load error, whatever the verifier.
 */
function paramTimeoutIssues(params: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const visit = (v: unknown, path: (string | number)[], depth: number): void => {
    if (depth > 8 || v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      const timeout = k === 'timeout_sec' || k.endsWith('_timeout_sec');
      if (timeout && typeof x === 'number' && !(x <= MAX_ACTION_TIMEOUT_SEC))
        ctx.addIssue({
          code: 'custom',
          path: [...path, k],
          message: `at most ${MAX_ACTION_TIMEOUT_SEC} s (1 day); longer limits are not supported`,
        });
      else visit(x, [...path, Array.isArray(v) ? Number(k) : k], depth + 1);
    }
  };
  visit(params, [], 0);
}

/** One thing an agent can do. CLI tasks use `shell`; GUI tasks the computer-use actions. */
export const ActionSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('shell'),
    /** Shell command run by bash in the sandbox's workdir. */
    command: z.string().min(1),
    /** Sandbox to run in; defaults to the task's first sandbox. */
    sandbox: z.string().optional(),
    /** Overrides the task's per-action timeout, in seconds (at most 86 400). */
    timeout_sec: seconds(MAX_ACTION_TIMEOUT_SEC).optional(),
  }),
  z.object({
    type: z.literal('click'),
    x: z.number(),
    y: z.number(),
    button: z.enum(['left', 'right', 'middle']).optional(),
  }),
  z.object({ type: z.literal('double_click'), x: z.number(), y: z.number() }),
  z.object({ type: z.literal('move'), x: z.number(), y: z.number() }),
  z.object({
    type: z.literal('drag'),
    from: z.tuple([z.number(), z.number()]),
    to: z.tuple([z.number(), z.number()]),
  }),
  z.object({ type: z.literal('scroll'), x: z.number(), y: z.number(), dx: z.number(), dy: z.number() }),
  z.object({ type: z.literal('key'), keys: z.string().min(1) }),
  z.object({ type: z.literal('type'), text: z.string() }),
  z.object({
    type: z.literal('wait'),
    seconds: z.number().nonnegative(),
    /**
     * engiloop's extension, for scripted solutions that must hold on a loaded machine: end the wait
     * as soon as the screen has `settled` (no change for 400 ms), has `changed` since before the
     * previous action and then settled, or a window whose title matches the regular expression
     * `window` has the focus. `seconds` is then the most it waits; the action fails if the
     * condition never holds.
     */
    until: z
      .union([
        z.enum(['settled', 'changed']),
        z.strictObject({
          window: z.string().min(1).refine(isRegExp, { message: 'must be a valid regular expression' }),
        }),
      ])
      .optional(),
  }),
  z.object({
    /**
     * Multi-software tasks: copy an artifact from one app's sandbox into another's, through the
     * object store by SHA-256 (sandboxes share no filesystem). Recorded as `artifact.handed_off`.
     */
    type: z.literal('handoff'),
    from: z.string().min(1),
    path: relPath,
    to: z.string().min(1),
    /** Path in the consumer's workdir. Default: the same as `path`. */
    dest: relPath.optional(),
  }),
]);
export type Action = z.infer<typeof ActionSchema>;

/** One round of a scripted solution: an action, or a batch of actions played in one round. */
export const SolutionStepSchema = z.union([ActionSchema, z.array(ActionSchema).min(1)]);
export type SolutionStep = z.infer<typeof SolutionStepSchema>;

const SandboxSpecSchema = z.object({
  /** Local image tag, e.g. `engiloop/cli:latest` (built by `engiloop images build`). */
  image: z.string().min(1),
  /**
   * Working folder, the sandbox's size-limited volume. An absolute, normalised path at least one
   * level deep, outside the system folders (see `workdirProblem`). Default `/workspace`.
   */
  workdir: workdirPath.default('/workspace'),
  resources: z
    .object({
      cpus: z.number().positive().max(64).default(1),
      memory_mb: intIn(64, MAX_MEMORY_MB, 'MiB').default(1024),
      pids: intIn(16, MAX_PIDS, 'processes').default(256),
    })
    .default({ cpus: 1, memory_mb: 1024, pids: 256 }),
  /**
   * Long-running services: regular expressions matched against a process's command line (its
   * argv joined by spaces). After every command, processes the command left behind are killed
   * unless one of these matches (e.g. `^python3 -m http\.server` for a server the agent starts on
   * purpose). A sandbox with `desktop:` keeps every process (its desktop and app are services).
   */
  services: z
    .array(z.string().min(1).refine(isRegExp, { message: 'must be a valid regular expression' }))
    .default([]),
  /**
   * GUI sandboxes (image `engiloop/desktop:latest`): the desktop (Xvfb 1920×1080 + openbox) is
   * started after provisioning, `launch` is started detached, and the episode waits for a window
   * whose title matches `window` before the first screenshot.
   */
  desktop: z
    .object({
      /** Command starting the app, e.g. `librecad` or `freecad part.FCStd`. */
      launch: z.string().min(1).optional(),
      /** Regular expression of the app's main window title. */
      window: z
        .string()
        .min(1)
        .refine(isRegExp, { message: 'must be a valid regular expression' })
        .optional(),
      /** How long the app may take to show its window, at most 3600 s. Default 90 s. */
      timeout_sec: seconds(MAX_DESKTOP_TIMEOUT_SEC).default(90),
      /** Pause after a turn's actions before the screenshot, so apps can repaint. Default 500 ms. */
      settle_ms: intIn(0, MAX_SETTLE_MS, 'ms').default(500),
    })
    .optional(),
});

const DeliverableSchema = z.object({
  /** Path relative to the sandbox workdir. */
  path: relPath,
  /** Declared format, checked by the `file` verifier (stl, cir, v, step, dxf, …). */
  format: z.string().min(1),
  /**
   * Sandbox the deliverable is read from; default the first. `"*"` (software-selection tasks): from
   * whichever sandbox has it (when several do, the most recently written copy), and the choice is
   * recorded.
   */
  sandbox: z.string().optional(),
  /**
   * Stage name: the deliverable is verified (with the criteria that read it) as soon as it appears or
   * changes during the episode, not only at the end. Options of the stage go under `stages`.
   */
  stage: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lower-case letters, digits, "-" or "_"')
    .optional(),
});

/** Options of a stage (see README "Stage checks"). A stage used by a deliverable needs no entry. */
export const StageSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'lower-case letters, digits, "-" or "_"'),
  /** Stop the episode (status `failed`) as soon as this stage's check fails. Default false. */
  halt_on_fail: z.boolean().default(false),
  /**
   * An earlier stage this one depends on: this stage is only verified once that stage's latest
   * check scored at least `min_score`; otherwise its check records `blockedBy` and scores 0.
   */
  after: z.string().optional(),
  min_score: z.number().min(0).max(1).default(1),
  /**
   * Deliverable paths of earlier stages this stage's app reads (e.g. `[part.stl]` when a STEP of
   * the same stage is only kept for the archive). Attribution and provenance blame only these.
   * Default: every deliverable of the `after` stage.
   */
  consumes: z.array(relPath).optional(),
  /**
   * Share of the final score taken from this stage's latest check, in [0, 1]. Final score =
   * (1 − Σ weights) × score of the final criteria + Σ weight × stage score. Default 0: reported only.
   */
  weight: z.number().min(0).max(1).default(0),
});
export type Stage = z.infer<typeof StageSchema>;

const CriterionSchema = z.object({
  /** Stable id, named in verdicts and defect expectations. */
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'lower-case letters, digits, "-" or "_"'),
  /** Registered verifier name, e.g. `stl.geometry` (see `engiloop verifiers`). */
  verifier: z.string().min(1),
  /** Deliverable path this criterion reads; the verifier reopens it. */
  deliverable: z.string().optional(),
  /**
   * `check`: binary pass/fail (binary tasks). `feasibility`: a gate of a quantitative task.
   * `quality`: the continuous score in [0, 1] of a quantitative task.
   */
  role: z.enum(['check', 'feasibility', 'quality']).default('check'),
  /** The verifier's params; any `timeout_sec` or `*_timeout_sec` among them is at most 86 400 s. */
  params: z.record(z.string(), z.unknown()).superRefine(paramTimeoutIssues).default({}),
});

export const TaskSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and "-"'),
    title: z.string().min(1),
    domain: z.enum(['cad', 'cae', 'cam', 'bim', 'eda', 'viz']),
    type: z.enum([
      'single-software',
      'multi-software',
      'software-selection',
      'quantitative-design',
      'image-based-modeling',
      'open-ended',
    ]),
    interface: z.enum(['cli', 'gui']),
    /** The text the agent sees. */
    objective: z.string().min(1),
    inputs: z
      .object({
        /** Files copied into the workspace: `src` in the task folder → `dest` in the workdir. */
        files: z
          .array(z.object({ src: relPath, dest: relPath.optional(), sandbox: z.string().optional() }))
          .default([]),
        /** Reference images shown to the agent. */
        reference_images: z.array(relPath).default([]),
      })
      .default({ files: [], reference_images: [] }),
    environment: z.object({
      sandboxes: z
        .record(z.string().regex(/^[a-z][a-z0-9-]*$/), SandboxSpecSchema)
        .refine((s) => Object.keys(s).length > 0, 'at least one sandbox is needed'),
    }),
    limits: z
      .object({
        /** Default: 100 (cli) / 200 (gui); 150 / 300 for multi-software and open-ended tasks. */
        max_rounds: z.number().int().positive().optional(),
        /** Per-command time limit, at most 86 400 s (1 day). Default 60. */
        action_timeout_sec: seconds(MAX_ACTION_TIMEOUT_SEC).default(60),
        /** Time limit of the whole episode, at most 2 592 000 s (30 days). Default 3600. */
        wall_clock_sec: seconds(MAX_WALL_CLOCK_SEC).default(3600),
        /** Bytes kept of each of stdout and stderr per command, 1 KiB to 64 MiB. Default 64 KiB. */
        output_cap_bytes: intIn(MIN_OUTPUT_CAP_BYTES, MAX_OUTPUT_CAP_BYTES, 'bytes').default(64 * 1024),
        /**
         * Times a sandbox that vanished under the episode (killed from outside, OOM) is restored from
         * its latest snapshot before the episode ends as infra_error. Default 2.
         */
        sandbox_retries: intIn(0, MAX_SANDBOX_RETRIES, 'retries').default(2),
        /** Workspace snapshot every this many rounds (0: never; stages still snapshot). Default 10. */
        snapshot_every: z.number().int().min(0).default(10),
        /**
         * Everything one sandbox can write (workspace, /tmp which is also HOME, /dev/shm) adds up to
         * at most this many MiB, enforced by the kernel: a write past it fails inside the sandbox
         * with "No space left on device". Default 2048.
         */
        disk_mb: z.number().int().min(64).max(1_048_576).default(2048),
        /**
         * Largest single file the harness takes out of a sandbox (a deliverable, a hand-off, a
         * `view_image` file), in MiB, counted at its apparent size (a sparse file counts in full).
         * Over it, that item fails with both sizes in the reason. Default 512.
         */
        file_cap_mb: z.number().int().min(1).max(65_536).default(512),
        /**
         * Bytes one episode may store, in MiB: its workspace snapshots, stage artifacts and
         * deliverables (each distinct content counted once). A snapshot that would pass it is not
         * taken (recorded with the sizes; a resume then re-runs more actions); a deliverable or
         * stage artifact that would pass it is refused, as over a cap. Default 8192.
         */
        store_budget_mb: z.number().int().min(0).max(1_048_576).default(8192),
      })
      .default({
        action_timeout_sec: 60,
        wall_clock_sec: 3600,
        output_cap_bytes: 65536,
        sandbox_retries: 2,
        snapshot_every: 10,
        disk_mb: 2048,
        file_cap_mb: 512,
        store_budget_mb: 8192,
      }),
    /** Rounds of history the agent sees, 1 to 1000. Default 15. */
    history_window: intIn(1, MAX_HISTORY_WINDOW, 'rounds').default(15),
    /**
     * Regular expressions for parts of command output that legitimately differ between runs
     * (timestamps, temp paths, timings); `replay --execute` blanks them before comparing, on top of
     * the built-in ones (durations, dates, container ids, mktemp paths).
     */
    volatile: z
      .array(
        z.string().refine((r) => {
          try {
            new RegExp(r);
            return true;
          } catch {
            return false;
          }
        }, 'must be a valid regular expression'),
      )
      .default([]),
    deliverables: z.array(DeliverableSchema).min(1),
    /** Options of the stages deliverables name (halt on failure, dependencies, score weights). */
    stages: z.array(StageSchema).default([]),
    scoring: z.enum(['binary', 'quantitative']).default('binary'),
    criteria: z.array(CriterionSchema).min(1),
    /** Reference solution: one entry per round, played by the scripted agent. */
    reference: z.array(SolutionStepSchema).min(1),
  })
  .superRefine((t, ctx) => {
    const names = Object.keys(t.environment.sandboxes);
    const ids = new Set<string>();
    t.criteria.forEach((c, i) => {
      if (ids.has(c.id))
        ctx.addIssue({ code: 'custom', path: ['criteria', i, 'id'], message: `duplicate id "${c.id}"` });
      ids.add(c.id);
      if (c.deliverable !== undefined && !t.deliverables.some((d) => d.path === c.deliverable))
        ctx.addIssue({
          code: 'custom',
          path: ['criteria', i, 'deliverable'],
          message: `"${c.deliverable}" is not a declared deliverable (declared: ${t.deliverables.map((d) => d.path).join(', ')})`,
        });
    });
    if (t.scoring === 'quantitative' && !t.criteria.some((c) => c.role === 'quality'))
      ctx.addIssue({
        code: 'custom',
        path: ['criteria'],
        message: 'a quantitative task needs a criterion with role "quality"',
      });
    const used = new Set(t.deliverables.flatMap((d) => (d.stage ? [d.stage] : [])));
    const seen: string[] = [];
    t.stages.forEach((st, i) => {
      if (!used.has(st.name))
        ctx.addIssue({
          code: 'custom',
          path: ['stages', i, 'name'],
          message: `no deliverable has stage "${st.name}" (add \`stage: ${st.name}\` to a deliverable)`,
        });
      const mine = new Set(t.deliverables.filter((d) => d.stage === st.name).map((d) => d.path));
      (st.consumes ?? []).forEach((path, j) => {
        const d = t.deliverables.find((x) => x.path === path);
        if (!d || d.stage === undefined || mine.has(path) || !seen.includes(d.stage))
          ctx.addIssue({
            code: 'custom',
            path: ['stages', i, 'consumes', j],
            message: `"${path}" must be a deliverable of a stage listed before "${st.name}" (${
              t.deliverables
                .filter((x) => x.stage !== undefined && seen.includes(x.stage))
                .map((x) => x.path)
                .join(', ') || 'none'
            })`,
          });
      });
      if (st.after !== undefined && !seen.includes(st.after))
        ctx.addIssue({
          code: 'custom',
          path: ['stages', i, 'after'],
          message: `"${st.after}" must be a stage listed before "${st.name}" (listed before it: ${seen.join(', ') || 'none'})`,
        });
      seen.push(st.name);
    });
    const weights = t.stages.reduce((a, st) => a + st.weight, 0);
    if (weights > 1)
      ctx.addIssue({
        code: 'custom',
        path: ['stages'],
        message: `stage weights add up to ${weights} (at most 1)`,
      });
    if (t.interface === 'gui' && !Object.values(t.environment.sandboxes).some((sb) => sb.desktop))
      ctx.addIssue({
        code: 'custom',
        path: ['environment', 'sandboxes'],
        message: 'a GUI task needs a sandbox with `desktop:` (image engiloop/desktop:latest)',
      });
    t.deliverables.forEach((d, i) => {
      if (d.sandbox !== undefined && d.sandbox !== '*' && !names.includes(d.sandbox))
        ctx.addIssue({
          code: 'custom',
          path: ['deliverables', i, 'sandbox'],
          message: `unknown sandbox "${d.sandbox}" (have: ${names.join(', ')})`,
        });
    });
  });

/** A task as written in task.yaml (before defaults are resolved). */
export type TaskInput = z.input<typeof TaskSchema>;
/** A task after validation, with every default filled in. */
export type Task = z.infer<typeof TaskSchema> & { limits: { max_rounds: number } };

/**
 * A variant written as the task's reference with some rounds changed: keys are reference round
 * numbers (from 1), values the round's new step, or `null` to drop the round. Keeps a variant of a
 * long GUI reference to the rounds that differ.
 */
const ReferenceEditsSchema = z.record(
  z.string().regex(/^[1-9]\d*$/, { message: 'keys are reference round numbers, from 1' }),
  SolutionStepSchema.nullable(),
);

/** A variant's solution: its own `actions`, or `reference_edits`; exactly one of the two. */
const variantSolution = {
  actions: z.array(SolutionStepSchema).min(1).optional(),
  reference_edits: ReferenceEditsSchema.optional(),
};
const oneSolution = (v: { actions?: unknown; reference_edits?: unknown }) =>
  (v.actions === undefined) !== (v.reference_edits === undefined);
const ONE_SOLUTION = {
  message:
    'give either actions (the whole solution) or reference_edits (rounds of the reference changed), not both',
  path: ['actions'],
};

/** A defect variant: a solution that must fail, and the criteria it must fail on. */
export const DefectSchema = z
  .object({
    description: z.string().min(1),
    /** Criterion ids that must fail (score 0 / not passed) for this variant. */
    fails: z.array(z.string()).min(1),
    /**
     * Multi-software tasks: where the chain must be found broken (the result's attribution), e.g.
     * `{ stage: mesh, cause: stale_handoff }`.
     */
    breaks_at: z
      .object({
        stage: z.string().nullable(),
        cause: z
          .enum(['agent', 'lost_handoff', 'stale_handoff', 'wrong_format', 'infrastructure'])
          .optional(),
      })
      .optional(),
    /**
     * How the episode must end. Default `done`. A defect that fails a `halt_on_fail` stage ends
     * `failed`: give `status: failed` and `breaks_at.stage`, the stage it must halt at.
     */
    status: z.enum(['done', 'failed', 'limit']).default('done'),
    /**
     * The final score the defect must get. Default 0. With weighted stages a defect can keep the
     * share of a stage that passed, e.g. 0.4; compared within 1e-6.
     */
    score: z.number().min(0).max(1).default(0),
    ...variantSolution,
  })
  .refine(oneSolution, ONE_SOLUTION);

/** A variant once loaded: `reference_edits` applied, so `actions` is the whole solution. */
type Resolved<T> = Omit<T, 'actions' | 'reference_edits'> & { actions: SolutionStep[] };
export type Defect = Resolved<z.infer<typeof DefectSchema>>;

/** An alternative valid solution: a different way to the goal that must pass too. */
export const AlternativeSchema = z
  .object({ description: z.string().min(1), ...variantSolution })
  .refine(oneSolution, ONE_SOLUTION);
export type Alternative = Resolved<z.infer<typeof AlternativeSchema>>;

/**
 * A variant's whole solution: its `actions`, or the reference with its `reference_edits` applied.
 * Returns the key of an edit past the reference's last round instead.
 */
export function variantActions(
  v: { actions?: SolutionStep[]; reference_edits?: Record<string, SolutionStep | null> },
  reference: readonly SolutionStep[],
): SolutionStep[] | { badRound: string } {
  if (v.actions) return v.actions;
  const edits = v.reference_edits ?? {};
  for (const k of Object.keys(edits)) if (Number(k) > reference.length) return { badRound: k };
  const out: SolutionStep[] = [];
  for (const [i, step] of reference.entries()) {
    const key = String(i + 1);
    if (!Object.hasOwn(edits, key)) out.push(step);
    else if (edits[key] !== null) out.push(edits[key]!);
  }
  return out;
}

/** Default decision limit per the EngiWorld protocol. */
export function defaultMaxRounds(t: Pick<Task, 'interface' | 'type'>): number {
  const long = t.type === 'multi-software' || t.type === 'open-ended';
  if (t.interface === 'gui') return long ? 300 : 200;
  return long ? 150 : 100;
}

/** A verifier's params schema as `taskJsonSchema` takes it. */
export interface CriterionJsonSchema {
  verifier: string;
  description: string;
  params: unknown;
}

/**
 * JSON Schema for task.yaml, for editors (`# yaml-language-server: $schema=…`). Given the verifiers'
 * params schemas, a criterion's `verifier` is one of their names and its `params` are checked
 * against the schema of the verifier it names (a union discriminated by `verifier`, written as
 * JSON Schema `if`/`then` so an editor reports the param that is wrong, not "matches no branch").
 */
export function taskJsonSchema(verifiers: readonly CriterionJsonSchema[] = []): unknown {
  const schema = z.toJSONSchema(TaskSchema, { io: 'input', unrepresentable: 'any' }) as unknown as {
    properties: { criteria: { items: Record<string, unknown> & { properties: Record<string, unknown> } } };
  };
  if (verifiers.length === 0) return schema;
  const items = schema.properties.criteria.items;
  items.additionalProperties = false;
  items.properties.verifier = {
    type: 'string',
    enum: verifiers.map((v) => v.verifier),
    description: 'Registered verifier name (see `engiloop verifiers`).',
  };
  items.allOf = verifiers.map((v) => ({
    if: { properties: { verifier: { const: v.verifier } }, required: ['verifier'] },
    then: { properties: { params: { description: v.description, ...(v.params as object) } } },
  }));
  return schema;
}
