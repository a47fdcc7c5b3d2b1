/**
 * Public surface of `actors/episode/`: the runner (`runEpisode`, a loop over the machine's
 * effects), what it needs from outside (ports), results read off a log, and the helpers replay and
 * attribution share with it.
 */
export { runEpisode } from './run-episode.js';
export { snapshotDigest, stableStringify } from './digest.js';
export { formatResult } from './observe.js';
export type { EpisodeDeps, EpisodeResult, EpisodeProgress } from './ports.js';
export { verifyTask } from './verify-task.js';
export { resultFromLog } from './result.js';
export { normalizer, firstDiff } from './normalize.js';
export { attribute, consumedBy, deliverableSandbox, type Attribution } from './attribute.js';
export { episodeDeps } from './deps.js';
