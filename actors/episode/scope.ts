/**
 * The live state the effects of one episode share. Its own module so the effects' helpers
 * (collect, hand-off, stages, snapshots, GUI) can name it without importing the effects.
 */
import type { Span } from '@opentelemetry/api';
import type { LoadedTask } from '../../tasks/index.js';
import type { Sandbox } from '../sandbox/index.js';
import type { EpisodeDeps, EpisodeOptions } from './ports.js';

/** Live state the effects share within one episode (never folded: rebuilt from events on resume). */
export interface EffectScope {
  lt: LoadedTask;
  deps: EpisodeDeps;
  opts: EpisodeOptions;
  sandboxes: Map<string, Sandbox>;
  span: Span;
  /** Size and time of each stage's deliverables when last read, so unchanged ones are not read again. */
  stageStamps?: Map<string, string>;
  /**
   * Bytes this episode stored against `limits.store_budget_mb` (snapshots, stage artifacts,
   * deliverables; each distinct digest once). Rebuilt from the events' snapshots on resume.
   */
  stored: { bytes: number; digests: Set<string> };
}
