export { runSuite, planEpisodes } from './run-suite.js';
export { summarize, type RunSummary } from './summary.js';
export { newRunId, episodeId } from './ids.js';
export { verifySuite, planChecks, suiteEpisodeId, judge, type SuiteCheckResult } from './verify-suite.js';
export { forkEpisode, forkPrefix, lastForkableRound } from './fork.js';
export { RunError } from './errors.js';
