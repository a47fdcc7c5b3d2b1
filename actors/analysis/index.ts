/**
 * Public surface of `actors/analysis/`: the failure-mode taxonomy and its detectors (pure functions
 * of an episode's log), episode summaries, run statistics and run comparison.
 */
export { MODES, type Finding } from './taxonomy.js';
export { episodeView } from './view.js';
export { detect, failureModesOf } from './detect.js';
export { recordSummary, summarizeEpisode, type EpisodeSummary } from './summary.js';
export { analyzeRuns, type RunAnalysis, type ScoreRow } from './run-analysis.js';
export { compareRuns, type RunComparison } from './compare.js';
export { loadRun, type LoadedRun } from './load.js';
export { isStatsError } from './stats.js';
export { judgeEpisode, type JudgeResult } from './judge.js';
export { traceEpisode } from './trace.js';
export { rightWrong } from './trace-series.js';
export { traceEveryRound } from './trace-rounds.js';
export { traceReport } from './trace-report.js';
