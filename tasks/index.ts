export {
  ActionSchema,
  TaskSchema,
  defaultMaxRounds,
  taskJsonSchema,
  type Action,
  type Task,
  type TaskInput,
  type SolutionStep,
  type Stage,
} from './schema.js';
export { fieldPath, loadTask, loadSuite, type LoadedTask, type SuiteLoad } from './load.js';
export { TaskLoadError, isTaskLoadError, formatProblem, type TasksErrorCode } from './errors.js';
export { defaultSandbox } from './sandboxes.js';
export { stagesOf } from './stages.js';
export { taskRecord, taskFromRecord, actionFromRecord } from './record.js';
export { checkTaskFile, readTaskFile, taskFolderFiles } from './files.js';
export { relPathProblem } from './paths.js';
export { MAX_HISTORY_WINDOW, MAX_TASK_FILE_BYTES, MAX_TASK_FOLDER_BYTES, sizeText } from './limits.js';
