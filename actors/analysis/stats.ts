/**
 * The statistics of `engiloop analyze` and `engiloop compare`: pure functions of numbers and
 * verdicts, with no I/O, no clock and no `Math.random` — resampling draws from a seeded generator
 * ({@link seededRandom}, default seed {@link DEFAULT_SEED}), so the same run gives the same
 * intervals and p-values every time. Each function's TSDoc gives its formula and a reference.
 *
 * - EngiScore and its interval: {@link bootstrapEngiScore} (cluster bootstrap over tasks),
 *   {@link bootstrapMean}.
 * - Repeats: {@link passAtK}, {@link passHatK}, {@link passAtKByTask}, {@link flips}, {@link variance}.
 * - Two runs: {@link pairedBootstrap}, {@link mcnemar}, {@link modeMix}.
 */
export {
  bootstrapEngiScore,
  bootstrapMean,
  pairedBootstrap,
  type PairedBootstrap,
} from './stats-bootstrap.js';
export { mcnemar, modeMix, type McNemar, type ModeMixRow } from './stats-compare.js';
export { mean, variance } from './stats-describe.js';
export { isStatsError, StatsError } from './stats-errors.js';
export { flips, passAtK, passAtKByTask, passHatK, type PassKByTask } from './stats-passk.js';
export { DEFAULT_SEED, seededRandom } from './stats-random.js';
