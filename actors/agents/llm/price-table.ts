/** The shape of a price table (provider → model or model prefix → USD per million tokens). */
import { z } from 'zod';

const perM = z.number().nonnegative();

/** Prices of one model, USD per million tokens. */
export const PriceSchema = z.strictObject({
  input: perM,
  output: perM,
  /** Cache reads; defaults to `input`. */
  cached_input: perM.optional(),
  /** Cache writes (Anthropic); defaults to `input`. */
  cache_write: perM.optional(),
});
export type Price = z.infer<typeof PriceSchema>;

/** A whole table, as `DEFAULT_PRICES` and the file named in `ENGILOOP_PRICES` give it. */
export const PriceTableSchema = z.record(z.string(), z.record(z.string(), PriceSchema));
export type PriceTable = z.infer<typeof PriceTableSchema>;
