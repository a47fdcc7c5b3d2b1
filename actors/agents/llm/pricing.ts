/**
 * Cost of a call from a price table: provider → model (or model prefix) → USD per million tokens.
 * The default table (`DEFAULT_PRICES`) is extended or overridden by the JSON/YAML file named in
 * `ENGILOOP_PRICES`.
 *
 * @example
 * ```yaml
 * # prices.yaml — ENGILOOP_PRICES=prices.yaml
 * openai:
 *   gpt-4o: { input: 2.5, cached_input: 1.25, output: 10 }
 *   qwen2.5-coder: { input: 0, output: 0 }   # a local model: free, so cost is 0 rather than unknown
 * ```
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { AgentError } from '../errors.js';
import { DEFAULT_PRICES } from './default-prices.js';
import { PriceTableSchema, type Price, type PriceTable } from './price-table.js';
import type { ProviderName, Usage } from './types.js';

/**
 * The default table with `env.ENGILOOP_PRICES` merged over it, model by model. Throws AgentError
 * `PRICES_INVALID` naming the file and the problem.
 */
export function loadPriceTable(env: NodeJS.ProcessEnv = process.env): PriceTable {
  const path = env.ENGILOOP_PRICES;
  if (!path) return DEFAULT_PRICES;
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new AgentError('PRICES_INVALID', `ENGILOOP_PRICES=${path}: ${(e as Error).message}`, { cause: e });
  }
  const r = PriceTableSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new AgentError(
      'PRICES_INVALID',
      `ENGILOOP_PRICES=${path}: ${i?.path.join('.') || '(file)'}: ${i?.message}`,
    );
  }
  const out: PriceTable = { ...DEFAULT_PRICES };
  for (const [provider, models] of Object.entries(r.data)) out[provider] = { ...out[provider], ...models };
  return out;
}

/** The price of `model`: exact key, else the longest key that prefixes it; `null` when none. */
export function findPrice(table: PriceTable, provider: ProviderName, model: string): Price | null {
  const models = table[provider] ?? {};
  if (Object.hasOwn(models, model)) return models[model] ?? null;
  const key = Object.keys(models)
    .filter((k) => model.startsWith(k))
    .sort((a, b) => b.length - a.length)[0];
  return key === undefined ? null : (models[key] ?? null);
}

/** USD for `usage` at `price`. */
export function costUsd(price: Price, u: Usage): number {
  const fresh = Math.max(0, u.input - u.cached - u.cacheWrite);
  const usd =
    fresh * price.input +
    u.cached * (price.cached_input ?? price.input) +
    u.cacheWrite * (price.cache_write ?? price.input) +
    u.output * price.output;
  return usd / 1e6;
}
