export { episodeMachine, type EpisodeMachine } from './episode.machine.js';
export {
  fold,
  step,
  applyEvent,
  initialSnapshot,
  persist,
  stateName,
  type Effect,
  type EpisodeSnapshot,
} from './fold.js';
export { parseDecision } from './decision.js';
export { emptyContext, type EpisodeContext, type RoundRecord, type Outcome } from './context.js';
export { EngiloopError, toErrorData, hasCode } from './errors.js';
