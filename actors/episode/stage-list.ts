/** The latest stage checks of an episode's log: pure, shared by stage checks and attribution. */
import type { EpisodeEvent, StageChecked } from '../../streams/index.js';

/** The latest check of each stage in `events`. */
export function latestStages(events: readonly EpisodeEvent[]): Map<string, StageChecked> {
  const m = new Map<string, StageChecked>();
  for (const e of events) if (e.type === 'stage.checked') m.set(e.stage, e);
  return m;
}
