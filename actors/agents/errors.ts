import { EngiloopError } from '../../core/index.js';

/** Every code an `AgentError` carries: every code raised under `actors/agents/`. */
export type AgentErrorCode =
  /** An agent spec no factory knows (`openai` without a model, a misspelt kind). */
  | 'AGENT_UNKNOWN'
  /** A provider's API key (or local base URL) is not in the environment. */
  | 'AGENT_KEY_MISSING'
  /** `scripted:<defect>` names a defect or alternative the task does not have. */
  | 'AGENT_DEFECT_MISSING'
  /** `ENGILOOP_PRICES` is not a readable, valid price table. */
  | 'PRICES_INVALID'
  /** The provider call failed before any HTTP exchange was recorded. */
  | 'PROVIDER_ERROR'
  /** The provider refused the request in a way a retry cannot fix (see `isRetryableStatus`). */
  | 'PROVIDER_REJECTED'
  /** The provider kept failing through every retry (retryable later). */
  | 'PROVIDER_UNAVAILABLE'
  /** A replayed agent was asked for more requests than were recorded. */
  | 'REPLAY_EXHAUSTED'
  /** A replayed agent's request differs from the recorded one. */
  | 'REPLAY_MISMATCH'
  /** The run was interrupted while the agent was deciding (the MCP bridge). */
  | 'ABORTED';

/** An agent that cannot be built (unknown spec, missing defect) or whose backend failed. */
export class AgentError extends EngiloopError<AgentErrorCode> {
  override readonly name = 'AgentError';
}
