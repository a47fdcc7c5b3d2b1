/**
 * Public surface of `machines/`: the episode machine (pure; every episode rule), the effects it asks
 * for, its fold, its rules version and its errors.
 */
export { episodeMachine } from './episode.machine.js';
export { effectOf, statePath, type Effect } from './effects.js';
export {
  fold,
  step,
  accepts,
  applyEvent,
  initialSnapshot,
  isCurrent,
  legacyPersisted,
  ownState,
  stateName,
  type EpisodeSnapshot,
  type FoldedSnapshot,
  type LegacySnapshot,
} from './fold.js';
export { MACHINE_VERSION, CURRENT_FLAGS, rulesFor } from './rules.js';
export { parseDecision } from './decision.js';
export { type EpisodeContext, type RoundRecord } from './context.js';
export { MachineError, EventRejectedError, isEventRejected } from './errors.js';
