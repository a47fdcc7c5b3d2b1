/** Parameter shapes shared by verifiers, so every task.yaml spells a range or a closeness alike. */
import { z, type ZodType } from 'zod';
import { visitParams } from './param-keys.js';

/** An inclusive range a measured value must fall in (a gate): `{ min?, max? }`, at least one. */
export const RangeSchema = z
  .object({ min: z.number().optional(), max: z.number().optional() })
  .refine((r) => r.min !== undefined || r.max !== undefined, 'give min, max or both');

/** Relative errors of full (score 1) and zero score for a target value, linear in between. */
export const ClosenessSchema = z
  .object({ full: z.number().nonnegative(), zero: z.number().positive() })
  .refine((c) => c.zero > c.full, 'zero must be greater than full');

/**
 * One-sided quality: full marks at or beyond `full`, zero at or beyond `zero`, linear in between.
 * `lower_is_better: { full: 2.0, zero: 3.0 }` scores 1 at ≤ 2.0 and 0 at ≥ 3.0.
 */
const OneSidedSchema = z.object({ full: z.number(), zero: z.number() });

/** `lower_is_better` needs zero above full; `higher_is_better` zero below full. */
export const LowerIsBetterSchema = OneSidedSchema.refine(
  (o) => o.zero > o.full,
  'lower_is_better: zero must be above full',
);
export const HigherIsBetterSchema = OneSidedSchema.refine(
  (o) => o.zero < o.full,
  'higher_is_better: zero must be below full',
);

const taskFileSchemas = new WeakSet<ZodType>();

/**
 * A param naming a file of the task folder that only verifiers see (a hidden testbench, a reference
 * solid, a goal render): relative, inside the folder. `tasks validate` checks that it exists.
 *
 * @example z.object({ testbench: taskFile() })
 */
export function taskFile(): z.ZodString {
  const s = z
    .string()
    .min(1)
    .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), {
      message: 'must be a relative path inside the task folder (no leading "/", no "..")',
    });
  taskFileSchemas.add(s);
  return s;
}

/** The task-folder files a criterion's params name, with the param path of each. */
export function taskFilesOf(schema: ZodType, params: unknown): { path: (string | number)[]; file: string }[] {
  const out: { path: (string | number)[]; file: string }[] = [];
  visitParams(schema, params, {
    node: (s, v, path) => {
      if (taskFileSchemas.has(s) && typeof v === 'string') out.push({ path, file: v });
    },
  });
  return out;
}
