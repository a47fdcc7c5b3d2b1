export { buildTimeline, type Timeline, type RoundView } from './timeline.js';
export { readEventsFile } from './source.js';
export { renderRound, renderSummary } from './view.js';
export { summarizeEvent } from './summary.js';
export { ReplayDivergenceError, isReplayDivergence } from './errors.js';
export {
  replayExecute,
  compareLogs,
  RecordedAgent,
  type ExecuteReport,
  type ExecuteOptions,
  type Divergence,
} from './execute.js';
