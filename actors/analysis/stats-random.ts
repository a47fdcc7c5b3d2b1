import { StatsError } from './stats-errors.js';

/**
 * The seed the statistics use when none is given, so that `engiloop analyze` prints the same
 * interval for the same run every time. Pass another `seed` to check an interval is not an
 * accident of one stream of draws.
 */
export const DEFAULT_SEED = 13;

/**
 * A seeded pseudo-random generator: mulberry32 (Tommy Ettinger, 2017; see github.com/bryc/code,
 * "PRNGs"): 32-bit state, period 2^32, fast and of ample quality for bootstrap resampling — not for
 * cryptography.
 * The seed is taken modulo 2^32 (`seed >>> 0`), so seeds that differ by a multiple of 2^32 give the
 * same stream.
 *
 * @returns a function returning uniform numbers in [0, 1), each a multiple of 2^-32.
 * @example
 * ```ts
 * const rand = seededRandom(7);
 * const index = Math.floor(rand() * values.length);
 * ```
 */
export function seededRandom(seed: number = DEFAULT_SEED): () => number {
  if (!Number.isFinite(seed))
    throw new StatsError('INVALID_INPUT', `seed must be a finite number, got ${seed}: pass e.g. seed: 13`);
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
