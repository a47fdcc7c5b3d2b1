/**
 * The agent interface: given the task's objective, the current observation and the last N rounds,
 * return a raw output — actions, DONE or FAIL. The harness parses it (`parseDecision`); an output
 * that does not parse is recorded and answered with an error observation.
 */
import type { RoundRecord } from '../../machines/index.js';
import type { Task } from '../../tasks/index.js';

export interface AgentInput {
  task: Task;
  /** The round being decided (1-based). */
  round: number;
  /** Text of the current observation. */
  observation: string;
  /** The most recent rounds, oldest first, at most `task.history_window`. */
  history: readonly RoundRecord[];
  signal?: AbortSignal;
}

export interface Agent {
  /** Spec string recorded in the log, e.g. `scripted` or `scripted:wrong-width`. */
  readonly name: string;
  /** Raw output: `{ actions: [...] }`, `{ done: true }`, `{ fail: "reason" }` — or anything (then invalid). */
  decide(input: AgentInput): Promise<unknown>;
}

/** Builds an agent for one episode of a task. */
export type AgentFactory = (task: Task, defects: Record<string, { actions: unknown[] }>) => Agent;
