export { buildTimeline, type Timeline } from './timeline.js';
export { readEventsFile } from './source.js';
export { renderRound, renderSummary } from './view.js';
export { summarizeEvent } from './summary.js';
export { ReplayDivergenceError, isReplayDivergence } from './errors.js';
export { replayExecute, compareLogs } from './execute.js';
