export { runWorker, type WorkerEnv } from './worker.js';
export { packTask, unpackTask } from './task-pack.js';
export { runProgress, runResults } from './run-status.js';
