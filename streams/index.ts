/**
 * Public surface of `streams/`: the event types, their codec and upcasters, the episode log and run
 * index on JetStream, the blob store and its retention (`engiloop gc`), and a local nats-server for
 * tests and benches.
 */
export {
  EVENT_VERSION,
  type ActionExecuted,
  type ActionStarted,
  type AgentDecided,
  type Decision,
  type EpisodeEvent,
  type EpisodeStatus,
  type ErrorData,
  type EventDraft,
  type ObservationRecorded,
  type VerdictData,
  type ActionRecord,
  type ArtifactHandedOff,
  type CommandResultRecord,
  type JsonValue,
  type RulesRecord,
  type StageChecked,
  type TaskRecord,
  type WorkspaceSnapshotted,
  type AgentCallRecord,
} from './events.js';
export { decodeEvent, encodeEvent } from './codec.js';
export { upcast, type UpcasterRegistry } from './upcast.js';
export { ensureStreams, EpisodeLog, EVENTS_STREAM, RUNS_STREAM, type StreamsOptions } from './log.js';
export { EpisodeWriter } from './writer.js';
export { isConnectionClosed, isTransient, retryTransient } from './nats-faults.js';
export { validateId } from './subjects.js';
export { BLOB_BUCKET, BlobStore, externalize, internalize, sha256Hex } from './blobs.js';
export { DEFAULT_RETENTION, type BlobKind } from './retention.js';
export { collectGarbage, REPORT_KINDS, type GcProgress, type GcReport } from './gc.js';
export { RunIndex, type RunRecord } from './runs.js';
export { SummaryStore, type EpisodeSummaryRecord } from './summaries.js';
export { connectNats } from './connect.js';
export {
  startNatsServer,
  type NatsClusterOptions,
  type NatsServerHandle,
  type NatsServerOptions,
} from './server.js';
export {
  BlobDigestError,
  BlobNotFoundError,
  CodecError,
  InvalidLogIdError,
  isBlobDigestMismatch,
  isLogConflict,
  LogConflictError,
  LogWriteError,
  NatsServerError,
  NatsUnreachableError,
  RetentionSettingsError,
  RunNotFoundError,
  UpcastError,
  type StreamsErrorCode,
} from './errors.js';
export { ensureJobsStream, JobQueue, JOBS_STREAM, WORKERS_CONSUMER, type HeldJob } from './jobs.js';
export { ensureLocalNats, stopLocalNats, localNatsStatus } from './local-server.js';
export { watchChanges, type StoreChange } from './watch.js';
