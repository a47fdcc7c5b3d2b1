import { EngiloopError } from '../../machines/errors.js';

/** An agent that cannot be built (unknown spec, missing defect) or whose backend failed. */
export class AgentError extends EngiloopError {
  override readonly name = 'AgentError';
}
