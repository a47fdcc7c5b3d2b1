export {
  ActionSchema,
  TaskSchema,
  DefectSchema,
  AlternativeSchema,
  SolutionStepSchema,
  defaultMaxRounds,
  taskJsonSchema,
  type Action,
  type Task,
  type TaskInput,
  type Defect,
  type Alternative,
  type SolutionStep,
  type Stage,
} from './schema.js';
export {
  fieldPath,
  loadTask,
  loadSuite,
  type LoadedTask,
  type SuiteLoad,
  type LoadOptions,
  type CriterionRules,
} from './load.js';
export { TaskLoadError, isTaskLoadError, formatProblem, type TaskProblem } from './errors.js';
export { stageNames } from './references.js';
export {
  checkTaskFile,
  readTaskFile,
  taskFolderFiles,
  type TaskFileOptions,
  type TaskFileProblem,
  type TaskFolderFile,
} from './files.js';
export { readTaskYaml, parseTaskYaml, MAX_YAML_DEPTH } from './yaml.js';
export { relPathProblem, workdirProblem } from './paths.js';
export {
  MAX_ACTION_TIMEOUT_SEC,
  MAX_WALL_CLOCK_SEC,
  MAX_DESKTOP_TIMEOUT_SEC,
  MAX_OUTPUT_CAP_BYTES,
  MIN_OUTPUT_CAP_BYTES,
  MAX_HISTORY_WINDOW,
  MAX_TASK_YAML_BYTES,
  MAX_YAML_ALIAS_NODES,
  MAX_TASK_FILE_BYTES,
  MAX_TASK_FOLDER_BYTES,
  MAX_TASK_FOLDER_ENTRIES,
  sizeText,
} from './limits.js';
