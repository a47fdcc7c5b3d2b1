/**
 * Runs every detector over an episode. Agent-owned modes explain a failure, so they are reported
 * only for an episode that did not pass (a passing episode that looped is not a failure); modes
 * owned by the task, the harness or the infrastructure are always reported.
 */
import { constraintDetector } from './detectors/constraint.js';
import { dependencyDetector } from './detectors/dependency.js';
import { faultsDetector } from './detectors/faults.js';
import { feedbackDetector } from './detectors/feedback.js';
import { guiDetector } from './detectors/gui.js';
import { loopsDetector } from './detectors/loops.js';
import { outcomeDetector } from './detectors/outcome.js';
import { selectionDetector } from './detectors/selection.js';
import { unverifiedDetector } from './detectors/unverified.js';
import type { Finding } from './taxonomy.js';
import type { EpisodeEvent } from '../../streams/index.js';
import { episodeView, ofType, type Detector, type EpisodeView } from './view.js';

/** Version of the detectors' rules; summaries record it, so a change shows which are older. */
export const DETECTORS_VERSION = 1 as const;

/** Every detector, in report order. */
export const DETECTORS: readonly Detector[] = [
  faultsDetector,
  outcomeDetector,
  dependencyDetector,
  constraintDetector,
  unverifiedDetector,
  feedbackDetector,
  loopsDetector,
  guiDetector,
  selectionDetector,
];

/** True when the episode ended and passed (verification passed, status done). */
export function passed(v: EpisodeView): boolean {
  const ended = ofType(v, 'episode.ended')[0];
  const verified = ofType(v, 'verification.completed').at(-1);
  return ended?.event.status === 'done' && verified?.event.passed === true;
}

/**
 * The ids of an ended episode's failure modes (for its telemetry span); [] when the log cannot be
 * analysed. Never throws.
 */
export function failureModesOf(events: readonly EpisodeEvent[]): string[] {
  try {
    return [...new Set(detect(episodeView(events)).map((f) => f.mode))];
  } catch {
    return [];
  }
}

/** The failure modes of an episode, each with its evidence; ordered by first cited event. */
export function detect(v: EpisodeView): Finding[] {
  const failed = !passed(v);
  return DETECTORS.flatMap((d) => d.detect(v))
    .filter((f) => failed || f.owner !== 'agent')
    .sort((a, b) => (a.seqs[0] ?? 0) - (b.seqs[0] ?? 0));
}
