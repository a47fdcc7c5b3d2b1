/** Parameter shapes shared by verifiers, so every task.yaml spells a range or a closeness alike. */
import { z } from 'zod';

/** An inclusive range a measured value must fall in (a gate): `{ min?, max? }`, at least one. */
export const RangeSchema = z
  .object({ min: z.number().optional(), max: z.number().optional() })
  .refine((r) => r.min !== undefined || r.max !== undefined, 'give min, max or both');

/** Relative errors of full (score 1) and zero score for a target value, linear in between. */
export const ClosenessSchema = z
  .object({ full: z.number().nonnegative(), zero: z.number().positive() })
  .refine((c) => c.zero > c.full, 'zero must be greater than full');
