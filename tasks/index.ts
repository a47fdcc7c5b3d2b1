export {
  ActionSchema,
  TaskSchema,
  DefectSchema,
  SolutionStepSchema,
  defaultMaxRounds,
  taskJsonSchema,
  type Action,
  type Task,
  type TaskInput,
  type Defect,
  type SolutionStep,
} from './schema.js';
