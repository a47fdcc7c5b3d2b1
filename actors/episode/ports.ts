/**
 * What the episode runner needs from the outside, as small structural interfaces, so the real
 * implementations (JetStream log, object store, Docker, verifiers) plug in and tests can pick.
 */
import type { BlobStore } from '../../streams/index.js';
import type { ErrorData, EpisodeEvent, EpisodeStatus, VerdictData } from '../../streams/index.js';
import type { LoadedTask } from '../../tasks/index.js';
import type { RunTool } from '../../verifiers/index.js';
import type { Agent } from '../agents/index.js';
import type { Attribution } from './attribute.js';
import type { Sandbox, SandboxCreateOptions } from '../sandbox/index.js';

/** Appends events of one episode (fenced: a second writer is rejected). */
export interface EventSink {
  append(event: EpisodeEvent): Promise<unknown>;
}

/** Content-addressed blob storage (the JetStream Object Store): deliverables and large outputs. */
export type BlobSink = BlobStore;

export interface SandboxFactory {
  create(opts: SandboxCreateOptions): Promise<Sandbox>;
  /**
   * Removes this host's containers with these labels whose creating process is dead (a killed
   * worker's sandboxes); optional. Returns how many were removed.
   */
  removeOrphans?(opts: { labels: Record<string, string> }): Promise<number>;
}

/** Verifies delivered artifacts against the task's criteria and scores them. */
export type VerifyFn = (
  lt: LoadedTask,
  ctx: {
    artifactsDir: string;
    runTool: RunTool;
    signal?: AbortSignal;
    /** Recorded nonces of sealed verifiers, by criterion (replays); see `VerifyOptions.seal`. */
    seal?: (criterion: string) => string | undefined;
  },
) => Promise<{ verdicts: VerdictData[]; score: number; passed: boolean }>;

/** Live progress of one episode. */
export interface EpisodeProgress {
  episodeId: string;
  taskId: string;
  state: string;
  round: number;
  maxRounds: number;
  lastAction: string | null;
  elapsedMs: number;
}

export interface EpisodeDeps {
  /** Makes the writer for one episode's subject. */
  openLog(episodeId: string): EventSink | Promise<EventSink>;
  blobs: BlobSink;
  sandboxes: SandboxFactory;
  runTool: RunTool;
  verify: VerifyFn;
  /** Clock; injected so tests can drive it. */
  now?: () => number;
  /**
   * The failure modes of an ended episode's events (actors/analysis), put on its telemetry span as
   * `engiloop.failure_modes`. Injected so this folder does not depend on the analysis.
   */
  failureModes?: (events: readonly EpisodeEvent[]) => readonly string[];
}

export interface EpisodeOptions {
  episodeId: string;
  runId: string;
  agent: Agent;
  /** Host folder where delivered artifacts are copied for verification. */
  artifactsDir: string;
  signal?: AbortSignal;
  onProgress?: (p: EpisodeProgress) => void;
  /**
   * Events already in the episode's log: the episode is resumed from them (the machine is rebuilt
   * by folding, the sandboxes by re-running the recorded actions). The log writer given by
   * `deps.openLog` must then be positioned after them (`EpisodeLog.resume`).
   */
  prior?: readonly EpisodeEvent[];
  /** Overrides the task's `limits.snapshot_every` (0: no interval snapshots). */
  snapshotEvery?: number;
  /**
   * Nonces for sealed verifiers, by criterion, in the order they are asked for: a replay passes the
   * recorded ones (see `recordedSeals`) so it re-verifies the way the original did.
   */
  seals?: (criterion: string) => string | undefined;
}

/** The result of one episode, as the results table and `--json` show it. */
export interface EpisodeResult {
  episodeId: string;
  taskId: string;
  agent: string;
  status: EpisodeStatus;
  /** Null for infra_error: never scored. */
  score: number | null;
  passed: boolean;
  rounds: number;
  durationMs: number;
  verdicts: VerdictData[];
  error: ErrorData | null;
  /** Digest of the final machine snapshot (null when the log could not be written). */
  snapshotDigest: string | null;
  /** Events appended. */
  events: number;
  /** Model tokens, cost and provider retries over the episode; null for scripted agents. */
  usage: AgentUsage | null;
  /** Multi-software episodes that did not pass: where the chain broke and why. */
  attribution: Attribution | null;
  /** The `halt_on_fail` stage whose failed check ended the episode; null when none did. */
  haltedAt: string | null;
  /** For a forked episode (`engiloop fork`): the episode and round it branched from. */
  parent?: { episodeId: string; round: number } | null;
}

/** A model-backed agent's usage over one episode. */
export interface AgentUsage {
  calls: number;
  input: number;
  output: number;
  cached: number;
  /** USD from the price table; null when a model had no price. */
  costUsd: number | null;
  /** Provider retries (429, 5xx, timeouts): never the agent's failure. */
  retries: number;
  /** Time spent in calls, retries and backoff included. */
  latencyMs: number;
}
