/**
 * Default price table, USD per million tokens, from the providers' public price pages. Models are
 * matched by exact name, else by the longest key that prefixes the model name (so dated snapshots
 * such as `claude-sonnet-4-5-20250929` match `claude-sonnet-4-5`). Prices change: override or extend
 * the table with `ENGILOOP_PRICES=path/to/prices.yaml` (same shape) rather than editing here.
 *
 * Kept as a TypeScript module rather than a JSON file so the build ships it without a copy step.
 */
import type { PriceTable } from './price-table.js';

export const DEFAULT_PRICES: PriceTable = {
  openai: {
    'gpt-5': { input: 1.25, cached_input: 0.125, output: 10 },
    'gpt-5-mini': { input: 0.25, cached_input: 0.025, output: 2 },
    'gpt-5-nano': { input: 0.05, cached_input: 0.005, output: 0.4 },
    'gpt-4.1': { input: 2, cached_input: 0.5, output: 8 },
    'gpt-4.1-mini': { input: 0.4, cached_input: 0.1, output: 1.6 },
    'gpt-4.1-nano': { input: 0.1, cached_input: 0.025, output: 0.4 },
    'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 },
    'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 },
    o3: { input: 2, cached_input: 0.5, output: 8 },
    'o3-mini': { input: 1.1, cached_input: 0.55, output: 4.4 },
    'o4-mini': { input: 1.1, cached_input: 0.275, output: 4.4 },
  },
  anthropic: {
    'claude-opus-4-5': { input: 5, cached_input: 0.5, cache_write: 6.25, output: 25 },
    'claude-opus-4-1': { input: 15, cached_input: 1.5, cache_write: 18.75, output: 75 },
    'claude-opus-4': { input: 15, cached_input: 1.5, cache_write: 18.75, output: 75 },
    'claude-sonnet-4-5': { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
    'claude-sonnet-4': { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
    'claude-3-7-sonnet': { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
    'claude-haiku-4-5': { input: 1, cached_input: 0.1, cache_write: 1.25, output: 5 },
    'claude-3-5-haiku': { input: 0.8, cached_input: 0.08, cache_write: 1, output: 4 },
  },
};
