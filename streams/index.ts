/**
 * Public surface of `streams/`: the event types, their codec and upcasters, the episode log and run
 * index on JetStream, the blob store and its retention (`engiloop gc`), and a local nats-server for
 * tests and benches.
 */
export {
  EVENT_VERSION,
  type ActionExecuted,
  type AgentDecided,
  type CommandResult,
  type Decision,
  type DistributiveOmit,
  type EpisodeEnded,
  type EpisodeEvent,
  type EpisodeEventType,
  type EpisodeStarted,
  type EpisodeStatus,
  type ErrorData,
  type EventBase,
  type EventDraft,
  type InfraFailed,
  type ObservationRecorded,
  type SandboxProvisioned,
  type VerdictData,
  type VerificationCompleted,
} from './events.js';
export { decodeEvent, encodeEvent, PACKR_OPTIONS, type DecodeContext } from './codec.js';
export { upcast, UPCASTERS, type RawEvent, type Upcaster, type UpcasterRegistry } from './upcast.js';
export {
  ensureStreams,
  episodeSubject,
  EpisodeLog,
  isTransient,
  retryTransient,
  EPISODE_SUBJECT_PREFIX,
  EVENTS_STREAM,
  EVENTS_STREAM_CONFIG,
  RUN_SUBJECT_PREFIX,
  RUNS_STREAM,
  RUNS_STREAM_CONFIG,
  type RawEpisodeRecord,
  type StreamsOptions,
} from './log.js';
export { EpisodeWriter, type AppendResult, type WriterPosition } from './writer.js';
export { validateId, type StoredRecord } from './subjects.js';
export {
  BLOB_BUCKET,
  BLOB_INLINE_LIMIT,
  BLOB_PREVIEW_BYTES,
  BlobStore,
  externalize,
  internalize,
  sha256Hex,
  type ExternalizeOptions,
} from './blobs.js';
export {
  DEFAULT_RETENTION,
  episodeRefs,
  episodeRetention,
  KEPT_FOR_ANALYSIS,
  resolveRetention,
  RetentionSettingsError,
  type BlobKind,
  type BlobRef,
  type BlobRetention,
  type EpisodeTier,
  type RetainedRef,
} from './retention.js';
export {
  collectGarbage,
  REPORT_KINDS,
  type GcOptions,
  type GcProgress,
  type GcReport,
  type ReportKind,
  type Tally,
} from './gc.js';
export {
  RUN_RECORD_VERSION,
  RunIndex,
  runSubject,
  type RunFinished,
  type RunRecord,
  type RunStarted,
} from './runs.js';
export { connectNats, DEFAULT_CONNECTION_OPTIONS } from './connect.js';
export {
  asyncDispose,
  natsServerVersion,
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
  RunNotFoundError,
  UpcastError,
} from './errors.js';
export {
  ensureJobsStream,
  JobQueue,
  JOBS_STREAM,
  JOBS_STREAM_CONFIG,
  JOB_SUBJECT_PREFIX,
  WORKERS_CONSUMER,
  type Job,
  type HeldJob,
  type JobQueueOptions,
} from './jobs.js';
export { ensureLocalNats, stopLocalNats, localNatsStatus } from './local-server.js';
