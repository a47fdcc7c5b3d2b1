/**
 * Episode events: the stored format of an episode. A typed, versioned union; every
 * nondeterministic input (clock reading, observation, agent output, exit code) arrives as one of these.
 *
 * WARNING: this is a stored format. Change a type only with a version bump and an upcaster in
 * `upcast.ts`; logs written today must still fold after the change.
 */
import type { Action, Task } from '../tasks/index.js';

/** Current schema version written by this build. */
export const EVENT_VERSION = 2 as const;

/*
 * Version history (each step has an upcaster in upcast.ts and a committed fixture log):
 *   v1 → v2: `agent.decided` gained `stateDigest` (null when upcast from v1); new types
 *            `action.started` and `episode.resumed` (absent from v1 logs; nothing to upcast).
 *   v2 additions (no bump: new types and optional fields only, absent from older logs and folded
 *            as before): `workspace.snapshotted`, `stage.checked`, `sandbox.lost`;
 *            `episode.resumed.{reason, snapshotRound, downtimeMs, restoreMs}`;
 *            `verification.completed.stages`; `agent.retried`; `agent.decided.call`;
 *            `observation.recorded.images`; `CommandResult.skipped`; `artifact.handed_off`;
 *            `verification.completed.sources`; `CommandResult.fault`; `snapshot.skipped`.
 */

/** Fields every event carries. */
export interface EventBase {
  /** Schema version of this event's shape. */
  v: number;
  /** Wall-clock time in ms since the epoch, read by the runner (the machine never reads a clock). */
  at: number;
}

/** Error as data: what enters the log is never a thrown object. */
export interface ErrorData {
  code: string;
  message: string;
  retryable?: boolean;
}

/** Output of one command, or a reference to it in the object store when large. */
export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  durationMs: number;
  /** Output went past the cap and was cut. */
  truncated: boolean;
  /** The command ran past its timeout and was killed. */
  timedOut: boolean;
  /** SHA-256 digests of the full stdout/stderr in the object store, when either exceeded 64 KiB. */
  blobs?: { stdout?: string; stderr?: string };
  /** Not run: an earlier GUI action of the same turn failed (AutoCAD-Bench's stop-at-first-failure). */
  skipped?: boolean;
  /**
   * A fault the command ran into that its own actions could have caused: scored as the agent's,
   * never as infra_error (see actors/sandbox/faults.ts).
   */
  fault?: CommandFault;
}

/** Why a command's result is an error the agent caused (kill -1, fork bomb, disk full, a cap). */
export interface CommandFault {
  code:
    | 'SHELL_KILLED'
    | 'SANDBOX_RESTARTED'
    | 'PIDS_EXHAUSTED'
    | 'DISK_FULL'
    | 'TIMEOUT'
    | 'OUTPUT_CAP'
    | 'FILE_CAP'
    | 'REQUEST_CAP';
  message: string;
}

/** The agent's output as parsed by the harness. */
export type Decision =
  | { kind: 'act'; actions: Action[] }
  | { kind: 'done'; message?: string }
  | { kind: 'fail'; reason: string }
  | { kind: 'invalid'; error: string };

/** One verdict on one criterion. */
export interface VerdictData {
  criterion: string;
  verifier: string;
  role: 'check' | 'feasibility' | 'quality';
  passed: boolean;
  /** Score in [0, 1]: 1/0 for checks; continuous for quality criteria. */
  score: number;
  measured?: unknown;
  expected?: unknown;
  tolerance?: unknown;
  reason: string;
  /**
   * Sealed verifiers (e.g. `verilog.testbench`): the per-verification nonce their verdict channel
   * was named with, so a replay re-verifies with the same names. Absent for other verifiers.
   */
  seal?: string;
}

export type EpisodeStatus = 'done' | 'failed' | 'limit' | 'infra_error';

/** Start of an episode: the full task snapshot so the log stands alone. */
export interface EpisodeStarted extends EventBase {
  type: 'episode.started';
  episodeId: string;
  runId: string;
  /** The validated task, defaults resolved. */
  task: Task;
  /** Agent spec, e.g. `scripted` or `scripted:defect=wrong-width`. */
  agent: string;
}

export interface SandboxProvisioned extends EventBase {
  type: 'sandbox.provisioned';
  /** Sandbox name → container id. */
  sandboxes: Record<string, string>;
}

export interface ObservationRecorded extends EventBase {
  type: 'observation.recorded';
  /** The round this observation feeds into (1-based). */
  round: number;
  /** Text shown to the agent (only a leading preview when `textBlob` is set). */
  text: string;
  /**
   * SHA-256 of the full text in the object store, when it exceeded 64 KiB (see `blobs.ts`
   * `externalize`). Added without a version bump: optional, and absent in every older event.
   */
  textBlob?: string;
  /** Screenshot digest in the object store (GUI tasks). */
  screenshot?: string;
  /**
   * Images shown to the agent with this observation, in the object store: the GUI screenshot, or a
   * PNG a CLI agent asked to view (`view_image`) in the round before.
   */
  images?: { name: string; mediaType: string; digest: string; bytes: number }[];
}

/** Token counts of one model call. */
export interface TokenUsage {
  input: number;
  output: number;
  /** Prompt tokens read from the provider's cache (a subset of `input`). */
  cached: number;
  /** Prompt tokens written to the provider's cache (a subset of `input`). */
  cacheWrite: number;
}

/** What a model-backed agent's call cost (absent for scripted agents). */
export interface AgentCallRecord {
  provider: string;
  model: string;
  usage: TokenUsage;
  /** From the price table; null when the model has no price. */
  costUsd: number | null;
  /** Wall time of the call, retries and backoff included. */
  latencyMs: number;
  /** Provider retries of this call (each also recorded as an `agent.retried` event). */
  retries: number;
  stopReason: string | null;
  promptVersion: number;
  /** SHA-256 of the JSON array of redacted request/response exchanges in the object store. */
  exchanges: string;
}

/** A provider call failed (429, 5xx, timeout) and was retried: never the agent's failure. */
export interface AgentRetried extends EventBase {
  type: 'agent.retried';
  round: number;
  attempt: number;
  status?: number;
  code?: string;
  message: string;
  delayMs: number;
}

export interface AgentDecided extends EventBase {
  type: 'agent.decided';
  round: number;
  /** The agent's raw output, as returned. */
  raw: unknown;
  decision: Decision;
  latencyMs: number;
  /**
   * SHA-256 of the machine's persisted snapshot this decision was made on (since v2), so replay can
   * check its fold round by round. `null` in events upcast from v1 logs, which did not record it.
   */
  stateDigest: string | null;
  /** Tokens, cost and the recorded exchanges, for model-backed agents. */
  call?: AgentCallRecord;
}

/** An action is about to run: written before it starts, so a crash mid-action is visible. */
export interface ActionStarted extends EventBase {
  type: 'action.started';
  round: number;
  index: number;
  action: Action;
}

export interface ActionExecuted extends EventBase {
  type: 'action.executed';
  round: number;
  /** Position of the action within the round's batch. */
  index: number;
  action: Action;
  result: CommandResult;
}

export interface VerificationCompleted extends EventBase {
  type: 'verification.completed';
  verdicts: VerdictData[];
  /** Task score in [0, 1] by the task's scoring rule. */
  score: number;
  passed: boolean;
  /** Deliverable path → SHA-256 of the artifact in the object store (absent when missing). */
  artifacts: Record<string, string | null>;
  /**
   * Stages whose score feeds the final score (weight > 0): their latest stage check, and the score
   * of the final criteria alone (`score` then mixes them as README "Stage checks" says).
   */
  stages?: {
    weights: Record<string, { weight: number; score: number; passed: boolean }>;
    finalScore: number;
  };
  /** Deliverable path → the sandbox it was read from, for deliverables declared `sandbox: "*"`. */
  sources?: Record<string, string>;
}

/** A fault of the harness or infrastructure; never scored as an agent failure. */
export interface InfraFailed extends EventBase {
  type: 'infra.failed';
  error: ErrorData;
  /** State the episode was in when the fault happened. */
  during: string;
}

/**
 * A worker took over an episode whose previous worker died: the sandbox was rebuilt by re-running
 * the recorded actions (compared with their recorded results), and an action that had started but
 * has no recorded result is re-run (the rule; see README "Resume").
 */
export interface EpisodeResumed extends EventBase {
  type: 'episode.resumed';
  /** Identity of the worker taking over (host:pid). */
  worker: string;
  /** Machine state the episode resumed in. */
  state: string;
  /** New sandbox name → container id. */
  sandboxes: Record<string, string>;
  /** Recorded actions re-executed to restore the sandboxes. */
  replayed: number;
  /** Re-executed actions whose result differed from the recorded one (after normalising). */
  divergences: { round: number; index: number; diff: string }[];
  /** The action that had started without a recorded result, re-run now; null if none. */
  interrupted: { round: number; index: number } | null;
  /** Why: the worker died (`worker_lost`, the default when absent) or a sandbox vanished (`sandbox_lost`). */
  reason?: 'worker_lost' | 'sandbox_lost';
  /** Round of the workspace snapshot the sandboxes were restored from; null when rebuilt from scratch. */
  snapshotRound?: number | null;
  /**
   * Time lost to the fault: from the last event before it to this one. The wall-clock cap does not
   * count it (the machine moves its clock origin forward by this much).
   */
  downtimeMs?: number;
  /** Of which: time spent restoring the sandboxes (provision, snapshot, re-execution). */
  restoreMs?: number;
}

/**
 * The sandboxes' writable state (the workdir and /tmp) was saved to the object store, so a resume
 * restores it and re-executes only the actions recorded after this event.
 */
export interface WorkspaceSnapshotted extends EventBase {
  type: 'workspace.snapshotted';
  /** Rounds completed when the snapshot was taken. */
  round: number;
  /** `interval`: every K rounds; `stage`: after a stage check. */
  reason: 'interval' | 'stage';
  /** Sandbox name → SHA-256 of its gzipped tar in the object store, and its size in bytes. */
  sandboxes: Record<string, { digest: string; bytes: number }>;
  durationMs: number;
}

/**
 * A due snapshot was not taken: it would have passed the episode's snapshot budget
 * (`limits.store_budget_mb`), or (`error`) the workspace could not be archived. A resume restores the latest snapshot before it and re-runs more.
 */
export interface SnapshotSkipped extends EventBase {
  type: 'snapshot.skipped';
  round: number;
  reason: 'interval' | 'stage';
  /** Sandbox whose archive went past what was left, and the bytes it reached before it stopped. */
  sandbox: string;
  bytes: number;
  /** Bytes of snapshots the episode had stored, and its budget. */
  usedBytes: number;
  budgetBytes: number;
  /** Set when the archive could not be made at all (files the agent made unreadable). */
  error?: string;
}

/** A stage's deliverables appeared (or changed) and were verified during the episode. */
export interface StageChecked extends EventBase {
  type: 'stage.checked';
  stage: string;
  /** Rounds completed when the check ran. */
  round: number;
  /** Deliverable path → SHA-256 of the artifact checked. */
  artifacts: Record<string, string>;
  verdicts: VerdictData[];
  score: number;
  passed: boolean;
  /** The stage depends on another whose score was too low: not verified, scored 0. */
  blockedBy?: { stage: string; score: number | null; min: number };
  /** The task says to stop the episode when this stage fails, and it failed: the machine ends it. */
  halt: boolean;
}

/**
 * An artifact crossed from one app's sandbox to another's (a `handoff` action), through the object
 * store by SHA-256. Written between the action's `action.started` and `action.executed`.
 */
export interface ArtifactHandedOff extends EventBase {
  type: 'artifact.handed_off';
  round: number;
  /** Position of the handoff action within its round. */
  index: number;
  /** Producer: sandbox and path. */
  from: { sandbox: string; path: string };
  /** Consumer: sandbox and path. */
  to: { sandbox: string; path: string };
  digest: string;
  bytes: number;
  /** Format read from the content (`step`, `stl`, `inp`, …, `unknown`). */
  format: string;
  /** Extension of the producer's path. */
  declared: string;
  /** Modification time of the file in the producer (ms since the epoch), null if unreadable. */
  producedAt: number | null;
  durationMs: number;
}

/**
 * A sandbox vanished under the episode (killed from outside, OOM, engine restart). The runner
 * restores it (see `episode.resumed` with reason `sandbox_lost`) up to the task's
 * `limits.sandbox_retries`, then records `infra.failed`. Never scored as an agent failure.
 */
export interface SandboxLost extends EventBase {
  type: 'sandbox.lost';
  error: ErrorData;
  /** State the episode was in. */
  during: string;
  /** 1 for the first loss in this episode. */
  attempt: number;
}

/** Terminal record: written once the machine reached a final state. */
export interface EpisodeEnded extends EventBase {
  type: 'episode.ended';
  status: EpisodeStatus;
  score: number | null;
  rounds: number;
  /** SHA-256 of the machine's persisted final snapshot (checked by fold). */
  snapshotDigest: string;
}

export type EpisodeEvent =
  | EpisodeStarted
  | SandboxProvisioned
  | ObservationRecorded
  | AgentDecided
  | AgentRetried
  | ActionStarted
  | ActionExecuted
  | EpisodeResumed
  | WorkspaceSnapshotted
  | SnapshotSkipped
  | StageChecked
  | SandboxLost
  | ArtifactHandedOff
  | VerificationCompleted
  | InfraFailed
  | EpisodeEnded;

export type EpisodeEventType = EpisodeEvent['type'];

/** Distributes Omit over the union so each member keeps its own fields. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event before the runner stamps `v` and `at`. */
export type EventDraft = DistributiveOmit<EpisodeEvent, 'v' | 'at'>;
