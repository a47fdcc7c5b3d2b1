/**
 * The agent interface: given the task's objective, the current observation and the last N rounds,
 * return a raw output — actions, DONE or FAIL. The harness parses it (`parseDecision`); an output
 * that does not parse is recorded and answered with an error observation.
 */
import type { RoundRecord } from '../../machines/index.js';
import type { Task } from '../../tasks/index.js';
import type { LlmCall } from './llm/types.js';

/** An image shown to the agent with the current observation. */
export interface AgentImage {
  /** What the image is, as the agent reads it: `screenshot`, or the path the agent asked to view. */
  name: string;
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mediaType: string;
  data: Buffer;
}

export interface AgentInput {
  task: Task;
  /** The round being decided (1-based). */
  round: number;
  /** Text of the current observation. */
  observation: string;
  /** The most recent rounds, oldest first, at most `task.history_window`. */
  history: readonly RoundRecord[];
  /**
   * Images belonging to the current observation: the screenshot in a GUI task, or the PNG a CLI
   * agent asked to see last round (`view_image`). Absent or empty when there is none.
   */
  images?: readonly AgentImage[];
  signal?: AbortSignal;
}

export interface Agent {
  /** Spec string recorded in the log, e.g. `scripted` or `scripted:wrong-width`. */
  readonly name: string;
  /** Raw output: `{ actions: [...] }`, `{ done: true }`, `{ fail: "reason" }` — or anything (then invalid). */
  decide(input: AgentInput): Promise<unknown>;
  /**
   * Model-backed agents: telemetry of the latest `decide()` (set whether it returned or threw). The
   * runner records it: retries as `agent.retried` events, tokens/cost/exchanges on `agent.decided`.
   */
  readonly lastCall?: LlmCall | null;
  /**
   * Values that must never be stored, e.g. the provider key a model-backed agent was configured
   * with. The runner redacts them, and their base64, hex and URL-encoded forms, from every recorded
   * event (`redactDraft` in actors/episode/redact-event.ts). Absent or empty: nothing to redact.
   */
  readonly secrets?: readonly string[];
}
