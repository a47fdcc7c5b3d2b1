export { runWorker, runJob, type WorkerEnv, type WorkerOptions } from './worker.js';
export { packTask, unpackTask } from './task-pack.js';
export { runProgress, runResults, finishRunIfComplete, type EpisodeStatusRow } from './run-status.js';
