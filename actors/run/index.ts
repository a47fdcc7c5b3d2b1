export { runSuite, planEpisodes, type SuiteRun, type SuiteRunOptions } from './run-suite.js';
export { summarize, type RunSummary } from './summary.js';
export { newRunId, episodeId } from './ids.js';
export { pool } from './pool.js';
export {
  verifySuite,
  planChecks,
  suiteEpisodeId,
  judge,
  type SuiteCheck,
  type SuiteCheckResult,
  type VerifySuiteOptions,
} from './verify-suite.js';
