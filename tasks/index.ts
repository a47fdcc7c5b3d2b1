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
