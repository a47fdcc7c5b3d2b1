/**
 * The verifier interface. A verifier reopens a delivered artifact with a real parser (or a real app
 * in a fresh tool container) and returns a verdict: passed/score, measured, expected, tolerance and a
 * reason a person can read. A missing, empty, corrupt or wrong-format file is a failing verdict with
 * that reason, never a throw or a hang.
 */
import type { ZodType } from 'zod';

/** A command run in a fresh, hardened, network-less container (used by verifiers that need an app). */
export interface ToolRequest {
  /** Image tag, e.g. `engiloop/cli:latest`. */
  image: string;
  /** bash command, run in /workspace. */
  command: string;
  /** Files copied into /workspace before the command: host path → path relative to /workspace. */
  files: { hostPath: string; dest: string }[];
  timeoutMs: number;
  /** Paths relative to /workspace to bring back after the command (missing ones are omitted). */
  collect?: string[];
}

export interface ToolResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  /** Collected files, by the relative path asked for. */
  files: Record<string, Buffer>;
}

export type RunTool = (req: ToolRequest, signal?: AbortSignal) => Promise<ToolResult>;

/** What a verifier is given. */
export interface VerifierContext {
  /** Host directory holding the delivered artifacts at their deliverable paths. */
  artifactsDir: string;
  /** Host directory of the task (hidden testbenches and references live under it). */
  taskDir: string;
  /** Runs an app in a fresh tool container. */
  runTool: RunTool;
  signal?: AbortSignal;
  /**
   * The files the task gave the agent, relative to the task folder (`inputs.files[].src` and
   * `inputs.reference_images`): what a deliverable must not merely copy. `verifyAll` fills it in.
   */
  inputs?: readonly string[];
  /**
   * The token a sealed verifier names its verdict channel with. Fresh and random per verification
   * unless given (a replay passes the recorded `seal` back, so it re-verifies the same way).
   */
  nonce?: string;
}

/** The criterion as the verifier sees it. */
export interface CriterionInput {
  id: string;
  deliverable?: string;
  role: 'check' | 'feasibility' | 'quality';
  params: Record<string, unknown>;
  /** Declared format of the deliverable in task.yaml (e.g. `stl`), when the caller knows it. */
  format?: string;
}

/** A verifier's answer on one criterion. */
export interface Verdict {
  passed: boolean;
  /**
   * In [0, 1]. Quality criteria: the continuous score. Checks and gates: 1 or 0, or a fraction for
   * information (e.g. testbench vectors passed); binary scoring and gates read only `passed`.
   */
  score: number;
  measured?: unknown;
  expected?: unknown;
  tolerance?: unknown;
  /** A sentence a person can read: what was measured against what, and why it passed or failed. */
  reason: string;
  /** Sealed verifiers: the nonce the verdict channel was named with (see `VerifierContext.nonce`). */
  seal?: string;
}

export interface Verifier {
  /** Registered name used in task.yaml, e.g. `stl.geometry`. */
  name: string;
  /**
   * Schema of the criterion's `params`; checked when tasks load, so a bad param fails early. Keys it
   * has no place for are refused, with the closest valid key.
   */
  params: ZodType;
  /** One line for `engiloop verifiers`. */
  description: string;
  /** Names its verdict channel with a per-verification nonce, recorded in the verdict's `seal`. */
  sealed?: boolean;
  verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict>;
}
