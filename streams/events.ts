/**
 * Episode events: the stored format of an episode. A typed, versioned union; every
 * nondeterministic input (clock reading, observation, agent output, exit code) arrives as one of these.
 *
 * WARNING: this is a stored format. Change a type only with a version bump and an upcaster in
 * `upcast.ts`; logs written today must still fold after the change.
 *
 * These are wire types, apart from the domain types they are made from: nothing here imports a task,
 * sandbox or xstate type, so editing a task field or upgrading a library cannot change a stored log
 * without a change to this file. Conversions are explicit: a sandbox's command result field by field
 * (actors/episode/records.ts), the task as its own JSON record (tasks/record.ts `taskRecord`, read
 * back with `taskFromRecord`), a recorded action back to the domain type (`actionFromRecord`).
 */

/** Current schema version written by this build. */
export const EVENT_VERSION = 3 as const;

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
 *   v2 → v3: `episode.started` gained `machine` (the rules version the episode was run under; 1 when
 *            upcast), `flags` (numbered behaviour flags; [] when upcast) and `rules` (the machine's
 *            inputs; absent when upcast: machine 1 read them from `task`); `task` is a JSON record.
 *            New types `stages.swept` and `episode.claimed`. Machine 2 folds strictly: an event its
 *            state does not accept is a divergence (see machines/fold.ts).
 */

/** A JSON value as stored. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Fields every event carries. */
export interface EventBase {
  /** Schema version of this event's shape. */
  v: number;
  /** Wall-clock time in ms since the epoch, read by the runner (the machine never reads a clock). */
  at: number;
}

/** Error as data: what enters the log is never a thrown object. */
export interface ErrorData {
  /** Stable machine-readable code, e.g. `CONTAINER_GONE` (the raising folder's code union). */
  code: string;
  /** What happened and, where known, the fix. */
  message: string;
  /** Whether trying again can help (absent: no). */
  retryable?: boolean;
}

/** Output of one command, or a reference to it in the object store when large. */
export interface CommandResultRecord {
  /** Standard output as captured (cut at the output cap; the full text in `blobs`). */
  stdout: string;
  /** Standard error, likewise. */
  stderr: string;
  /** Exit code; null when the command did not exit by itself (killed, not run). */
  exitCode: number | null;
  /** Wall time of the command in ms. */
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
  fault?: CommandFaultRecord;
}

/** Why a command's result is an error the agent caused (kill -1, fork bomb, disk full, a cap). */
export interface CommandFaultRecord {
  code:
    | 'SHELL_KILLED'
    | 'SANDBOX_RESTARTED'
    | 'PIDS_EXHAUSTED'
    | 'DISK_FULL'
    | 'TIMEOUT'
    | 'OUTPUT_CAP'
    | 'FILE_CAP'
    | 'REQUEST_CAP';
  /** What the agent ran into, in words the agent is shown. */
  message: string;
}

/** `[x, y]` in screen pixels. */
export type PointRecord = [number, number];

/**
 * One action as stored: the agent's request, after the harness parsed it (field names as in a
 * task's `reference` and an agent's output; see README "Actions").
 */
export type ActionRecord =
  | {
      type: 'shell';
      /** Shell command run by bash in the sandbox's workdir. */
      command: string;
      /** Sandbox to run in; absent: the task's first sandbox. */
      sandbox?: string;
      /** Per-action timeout in seconds, overriding the task's. */
      timeout_sec?: number;
    }
  | { type: 'click'; x: number; y: number; button?: 'left' | 'right' | 'middle' }
  | { type: 'double_click'; x: number; y: number }
  | { type: 'move'; x: number; y: number }
  | { type: 'drag'; from: PointRecord; to: PointRecord }
  | { type: 'scroll'; x: number; y: number; dx: number; dy: number }
  /** Keys as xdotool names them, `+` for chords (`ctrl+s`). */
  | { type: 'key'; keys: string }
  | { type: 'type'; text: string }
  | {
      type: 'wait';
      seconds: number;
      /** End early once the screen settled / changed, or a window matching `window` has the focus. */
      until?: 'settled' | 'changed' | { window: string };
    }
  | {
      type: 'handoff';
      /** Producer sandbox, path in its workdir, consumer sandbox and path there (default `path`). */
      from: string;
      path: string;
      to: string;
      dest?: string;
    };

/** The agent's output as parsed by the harness. */
export type Decision =
  | { kind: 'act'; actions: ActionRecord[] }
  | { kind: 'done'; message?: string }
  | { kind: 'fail'; reason: string }
  | { kind: 'invalid'; error: string };

/** One verdict on one criterion. */
export interface VerdictData {
  /** The criterion's id in the task. */
  criterion: string;
  /** The verifier that judged it, by name (e.g. `cad.stl_geometry`). */
  verifier: string;
  /** `check`: pass or fail; `feasibility`: gates a quantitative task; `quality`: scored continuously. */
  role: 'check' | 'feasibility' | 'quality';
  /** Whether the criterion holds. */
  passed: boolean;
  /** Score in [0, 1]: 1/0 for checks; continuous for quality criteria. */
  score: number;
  /** What the verifier measured on the artifact (recomputed, never read from it). */
  measured?: unknown;
  /** What the criterion asks for. */
  expected?: unknown;
  /** How far from `expected` still passes. */
  tolerance?: unknown;
  /** One line naming the defect (or why it passed). */
  reason: string;
  /**
   * Sealed verifiers (e.g. `verilog.testbench`): the per-verification nonce their verdict channel
   * was named with, so a replay re-verifies with the same names. Absent for other verifiers.
   */
  seal?: string;
}

export type EpisodeStatus = 'done' | 'failed' | 'limit' | 'infra_error';

/**
 * A task as stored: the validated task with its defaults resolved, in task.yaml's field names, so
 * the log stands alone. Read back with `taskFromRecord` (tasks/), which validates it against the
 * schema of the reading build; the machine never reads it (its inputs are `EpisodeStarted.rules`).
 */
export type TaskRecord = { id: string } & { [field: string]: JsonValue };

/** One stage as the machine's rules see it. */
export interface StageRule {
  /** The stage's name in the task. */
  name: string;
  /** A failed check of this stage ends the episode (status `failed`). */
  haltOnFail: boolean;
  /** The stage it depends on: checked only once that one scored at least `minScore`. */
  after: string | null;
  /** Score the `after` stage must reach. */
  minScore: number;
}

/**
 * The machine's inputs, fixed when the episode starts (machine version 2): every rule the fold
 * re-checks is a function of these and the events.
 */
export interface RulesRecord {
  /** Last round in which the agent may decide. */
  maxRounds: number;
  /** Wall-clock cap in ms, on the events' own clock (downtime of a resume excluded). */
  wallClockMs: number;
  /** Rounds of history the agent sees. */
  historyWindow: number;
  /** A batch stops at its first failing action; the rest are recorded as skipped (GUI tasks). */
  stopAtFirstFailure: boolean;
  /** A workspace snapshot after every K-th round; 0: none. */
  snapshotEvery: number;
  /** A workspace snapshot after a round whose stage checks recorded something. */
  snapshotAfterStages: boolean;
  /** The task's stages, in order; empty: no stage checks. */
  stages: StageRule[];
  /** Lost sandboxes restored before the episode is given up as infra_error. */
  sandboxRetries: number;
}

/** Start of an episode: the task, the machine's rules and the agent, so the log stands alone. */
export interface EpisodeStarted extends EventBase {
  type: 'episode.started';
  /** The episode: its log subject and every id derived from it. */
  episodeId: string;
  /** The run it belongs to. */
  runId: string;
  /**
   * Version of the machine's rules the episode runs under (machines/rules.ts `MACHINE_VERSION`).
   * 1 in logs upcast from event v1/v2: the frozen machine 1 folds those.
   */
  machine: number;
  /** Numbered behaviour flags on for this episode (machines/rules.ts `FLAGS`); [] when upcast. */
  flags: number[];
  /** The machine's inputs (since v3; machine 1 read them from `task`). */
  rules?: RulesRecord;
  /** The validated task, defaults resolved. */
  task: TaskRecord;
  /** Agent spec, e.g. `scripted` or `scripted:defect=wrong-width`. */
  agent: string;
  /**
   * Set on an episode forked from another (`engiloop fork`): the original and the round whose end
   * it branched from. The events of rounds 1..round are copies of the original's. Added without a
   * version bump: optional, and absent in every older event.
   */
  parent?: { episodeId: string; round: number };
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
  /**
   * GUI tasks: the managed windows when the screenshot was taken, in screen pixels, and which had
   * the focus (what the failure analysis checks clicks against). Added without a version bump:
   * optional, and absent in every older event.
   */
  windows?: { title: string; x: number; y: number; width: number; height: number; focused: boolean }[];
}

/** Token counts of one model call. */
export interface TokenUsage {
  /** Prompt tokens. */
  input: number;
  /** Completion tokens. */
  output: number;
  /** Prompt tokens read from the provider's cache (a subset of `input`). */
  cached: number;
  /** Prompt tokens written to the provider's cache (a subset of `input`). */
  cacheWrite: number;
}

/** What a model-backed agent's call cost (absent for scripted agents). */
export interface AgentCallRecord {
  /** Provider adapter, e.g. `openai`, `anthropic`. */
  provider: string;
  /** Model as the provider named it. */
  model: string;
  /** Tokens of the call. */
  usage: TokenUsage;
  /** From the price table; null when the model has no price. */
  costUsd: number | null;
  /** Wall time of the call, retries and backoff included. */
  latencyMs: number;
  /** Provider retries of this call (each also recorded as an `agent.retried` event). */
  retries: number;
  /** The provider's stop reason, as it reported it. */
  stopReason: string | null;
  /** Version of engiloop's prompt the call was made with. */
  promptVersion: number;
  /** SHA-256 of the JSON array of redacted request/response exchanges in the object store. */
  exchanges: string;
}

/** A provider call failed (429, 5xx, timeout) and was retried: never the agent's failure. */
export interface AgentRetried extends EventBase {
  type: 'agent.retried';
  /** The round whose decision was being asked for. */
  round: number;
  /** The attempt that failed (1-based). */
  attempt: number;
  /** HTTP status of the failed attempt, when it had one. */
  status?: number;
  /** Error code of the failed attempt (a network error, a timeout), when it had one. */
  code?: string;
  /** What failed. */
  message: string;
  /** Wait before the next attempt. */
  delayMs: number;
}

export interface AgentDecided extends EventBase {
  type: 'agent.decided';
  /** The round this decision is (1-based): the rounds decided so far, this one included. */
  round: number;
  /** The agent's raw output, as returned. */
  raw: unknown;
  /** The output as the harness parsed it (`invalid` with the reason when it was not usable). */
  decision: Decision;
  /** Wall time the agent took to decide, retries included. */
  latencyMs: number;
  /**
   * SHA-256 of the machine's state this decision was made on (since v2), so replay can check its
   * fold round by round: machine 2 hashes engiloop's own `{ state, context }` (actors/episode/
   * digest.ts); machine 1 hashed xstate's persisted snapshot. `null` in events upcast from v1 logs.
   */
  stateDigest: string | null;
  /** Tokens, cost and the recorded exchanges, for model-backed agents. */
  call?: AgentCallRecord;
}

/** An action is about to run: written before it starts, so a crash mid-action is visible. */
export interface ActionStarted extends EventBase {
  type: 'action.started';
  /** Round of the action. */
  round: number;
  /** Position of the action within the round's batch (0-based). */
  index: number;
  /** The action, as the decision gave it. */
  action: ActionRecord;
}

export interface ActionExecuted extends EventBase {
  type: 'action.executed';
  /** Round of the action. */
  round: number;
  /** Position of the action within the round's batch. */
  index: number;
  /** The action, as the decision gave it. */
  action: ActionRecord;
  /** What it gave: output, exit code, and a fault the agent's own actions caused. */
  result: CommandResultRecord;
}

export interface VerificationCompleted extends EventBase {
  type: 'verification.completed';
  /** One verdict per final criterion. */
  verdicts: VerdictData[];
  /** Task score in [0, 1] by the task's scoring rule. */
  score: number;
  /** Whether the task passed by its scoring rule (and every weighted stage passed). */
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
  /** The fault, as data. */
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
  /** Time the snapshot took. */
  durationMs: number;
}

/**
 * A due snapshot was not taken: it would have passed the episode's snapshot budget
 * (`limits.store_budget_mb`), or (`error`) the workspace could not be archived. A resume restores the latest snapshot before it and re-runs more.
 */
export interface SnapshotSkipped extends EventBase {
  type: 'snapshot.skipped';
  /** Rounds completed when the snapshot was due. */
  round: number;
  /** Why it was due (as `workspace.snapshotted.reason`). */
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
  /** The stage's name. */
  stage: string;
  /** Rounds completed when the check ran. */
  round: number;
  /** Deliverable path → SHA-256 of the artifact checked. */
  artifacts: Record<string, string>;
  /** Verdicts of the criteria that read the stage's deliverables. */
  verdicts: VerdictData[];
  /** The stage's score by the task's scoring rule (0 when blocked). */
  score: number;
  /** Whether the stage passed. */
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
  /** Round of the handoff action. */
  round: number;
  /** Position of the handoff action within its round. */
  index: number;
  /** Producer: sandbox and path. */
  from: { sandbox: string; path: string };
  /** Consumer: sandbox and path. */
  to: { sandbox: string; path: string };
  /** SHA-256 of the artifact in the object store. */
  digest: string;
  /** Its size. */
  bytes: number;
  /** Format read from the content (`step`, `stl`, `inp`, …, `unknown`). */
  format: string;
  /** Extension of the producer's path. */
  declared: string;
  /** Modification time of the file in the producer (ms since the epoch), null if unreadable. */
  producedAt: number | null;
  /** Time the hand-off took. */
  durationMs: number;
}

/**
 * A sandbox vanished under the episode (killed from outside, OOM, engine restart). The runner
 * restores it (see `episode.resumed` with reason `sandbox_lost`) up to the task's
 * `limits.sandbox_retries`, then records `infra.failed`. Never scored as an agent failure.
 */
export interface SandboxLost extends EventBase {
  type: 'sandbox.lost';
  /** The fault (`CONTAINER_GONE`), as data. */
  error: ErrorData;
  /** State the episode was in. */
  during: string;
  /** 1 for the first loss in this episode. */
  attempt: number;
}

/**
 * The stage checks the machine asked for after a round, a hand-off or before the final
 * verification are over (each check that found something new was one `stage.checked` before this).
 * Written only for tasks with stages.
 */
export interface StagesSwept extends EventBase {
  type: 'stages.swept';
  /** Rounds completed. */
  round: number;
  /** What the checks followed: the end of a round, a hand-off within it, or the episode's end. */
  after: 'round' | 'handoff' | 'final';
}

/**
 * A worker took the episode over from one that died: the sandboxes of the one before are gone, so
 * the machine asks for them to be restored (an `episode.resumed` follows) unless the episode is over.
 */
export interface EpisodeClaimed extends EventBase {
  type: 'episode.claimed';
  /** Identity of the worker taking over (host:pid). */
  worker: string;
}

/** Terminal record: written once the machine reached a final state. */
export interface EpisodeEnded extends EventBase {
  type: 'episode.ended';
  /** The status the machine ended in. */
  status: EpisodeStatus;
  /** The verified score; null for `infra_error` (never scored). */
  score: number | null;
  /** Decisions taken. */
  rounds: number;
  /** SHA-256 of the machine's state before this event, as `agent.decided.stateDigest` (checked by fold). */
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
  | StagesSwept
  | EpisodeClaimed
  | VerificationCompleted
  | InfraFailed
  | EpisodeEnded;

/** Distributes Omit over the union so each member keeps its own fields. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event before the runner stamps `v` and `at`. */
export type EventDraft = DistributiveOmit<EpisodeEvent, 'v' | 'at'>;
