/**
 * PNG decoding and pixel differences (pngjs + pixelmatch): the fraction of pixels that differ
 * between two same-sized images, and BlenderGym's improvement score.
 */
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { ArtifactInvalidError } from '../errors.js';
import { isPng } from '../magic.js';

/** Decoded RGBA pixels. */
export interface Rgba {
  width: number;
  height: number;
  data: Buffer;
}

/**
 * Decodes a PNG to RGBA. Throws `ArtifactInvalidError` for a wrong signature, an image larger than
 * `maxPixels` (read from the header before decoding) or a corrupt/truncated stream.
 */
export function decodePng(bytes: Buffer, maxPixels = 16_000_000): Rgba {
  if (!isPng(bytes)) throw new ArtifactInvalidError('not a PNG (wrong signature)');
  if (bytes.length < 24) throw new ArtifactInvalidError('PNG is truncated before its header');
  const [w, h] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
  if (w * h > maxPixels) throw new ArtifactInvalidError(`PNG is ${w}×${h}, larger than ${maxPixels} pixels`);
  try {
    const png = PNG.sync.read(bytes);
    return { width: png.width, height: png.height, data: png.data };
  } catch (err) {
    throw new ArtifactInvalidError(`PNG could not be decoded: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Fraction of pixels of `a` that differ from `b` by more than `threshold` (pixelmatch's perceptual
 * colour distance, 0 … 1). Throws when the sizes differ.
 */
export function diffFraction(a: Rgba, b: Rgba, threshold = 0.1): number {
  if (a.width !== b.width || a.height !== b.height)
    throw new ArtifactInvalidError(`image is ${a.width}×${a.height}, the goal is ${b.width}×${b.height}`);
  const n = pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold, includeAA: true });
  return n / (a.width * a.height);
}

/**
 * BlenderGym's improvement: how much of the way from the start render to the goal render the
 * delivered render has come, `clamp((dStart − d) / (dStart − dGoal), 0, 1)`: 0 for the start scene,
 * 1 for the goal. `null` when start and goal do not differ (the task is ill-posed).
 *
 * @example improvement(0.4, 0.1) // 0.75
 */
export function improvement(dStart: number, d: number, dGoal = 0): number | null {
  const span = dStart - dGoal;
  if (!(span > 0)) return null;
  return Math.min(1, Math.max(0, (dStart - d) / span));
}
