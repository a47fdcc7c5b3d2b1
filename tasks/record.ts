/**
 * Conversions between the task's domain types and their stored records (streams/events.ts): a task
 * field or a schema change reaches a stored log only through these.
 */
import type { ActionRecord, JsonValue, TaskRecord } from '../streams/index.js';
import { ActionSchema, TaskSchema, type Action, type Task } from './schema.js';

/** JSON copy of a value (drops `undefined` fields, as the log's encoding would). */
const json = <T>(v: T): JsonValue => JSON.parse(JSON.stringify(v)) as JsonValue;

/** The task as `episode.started` records it. */
export function taskRecord(task: Task): TaskRecord {
  return json(task) as TaskRecord;
}

/**
 * The task a log recorded, validated by this build's schema (defaults of fields added since are
 * filled in). Null when it no longer validates (a log of an engiloop whose schema differed).
 */
export function taskFromRecord(rec: TaskRecord): Task | null {
  // A recorded task has its defaults resolved, `limits.max_rounds` included.
  const r = TaskSchema.safeParse(rec);
  return r.success ? (r.data as Task) : null;
}

/** A recorded action as the domain type (validated: a log is read as untrusted input). */
export function actionFromRecord(rec: ActionRecord): Action {
  return ActionSchema.parse(rec);
}
