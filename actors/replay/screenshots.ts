/**
 * Screenshot comparison for `replay --execute` on GUI episodes: each re-executed round's screenshot
 * against the recorded one, as the fraction of pixels that differ (pixelmatch, per-pixel colour
 * threshold 0.1); a round above `maxPixelDiff` diverges.
 */
import type { EpisodeEvent, ObservationRecorded } from '../../streams/index.js';
import { decodePng, diffFraction } from '../../verifiers/index.js';

/** Default share of pixels that may differ between a recorded and a re-executed screenshot. */
export const DEFAULT_MAX_PIXEL_DIFF = 0.01;

export interface ScreenshotComparison {
  /** Pixel-difference fraction per round that had a screenshot in both logs. */
  perRound: { round: number; diff: number }[];
  /** First round above the threshold, or null. */
  first: { round: number; diff: number } | null;
}

const shots = (es: readonly EpisodeEvent[]) =>
  es.filter((e): e is ObservationRecorded => e.type === 'observation.recorded' && e.screenshot !== undefined);

/** Compares the screenshots of two logs round by round, reading the PNGs with `get`. */
export async function compareScreenshots(
  recorded: readonly EpisodeEvent[],
  replayed: readonly EpisodeEvent[],
  get: (digest: string) => Promise<Buffer>,
  maxPixelDiff = DEFAULT_MAX_PIXEL_DIFF,
): Promise<ScreenshotComparison> {
  const b = new Map(shots(replayed).map((e) => [e.round, e.screenshot!]));
  const perRound: { round: number; diff: number }[] = [];
  let first: { round: number; diff: number } | null = null;
  for (const a of shots(recorded)) {
    const other = b.get(a.round);
    if (!other) continue; // a missing round is reported by the text comparison
    const diff =
      other === a.screenshot
        ? 0
        : diffFraction(decodePng(await get(a.screenshot!)), decodePng(await get(other)));
    perRound.push({ round: a.round, diff });
    if (!first && diff > maxPixelDiff) first = { round: a.round, diff };
  }
  return { perRound, first };
}
