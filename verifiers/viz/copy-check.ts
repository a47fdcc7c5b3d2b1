/**
 * Is a delivered picture a copy of a picture the agent was given? An agent asked for a render that
 * matches a reference image can hand the reference back. A copy is found two ways against every
 * image of the task's inputs: byte-identical (SHA-256), or near-identical — at the same size (the
 * input scaled to the render's size first when only the size differs, same aspect ratio), at most
 * `max_diff` of the pixels differ by more than pixelmatch's `threshold` (defaults: 0.5 % of pixels
 * at threshold 0.05, a tight colour distance). That catches re-encoded files, a changed pixel or a
 * small stamp, and colour noise; a renderer's own output of a different scene differs in far more
 * pixels. Beyond that a retouched copy cannot be told from a render, so tasks that give the goal
 * image to the agent should deliver the scene, which the verifier renders itself.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isArtifactInvalid } from '../errors.js';
import { isPng } from '../magic.js';
import { decodePng, diffFraction, type Rgba } from './png-diff.js';

/** What counts as a near copy. */
export interface CopyRule {
  /** pixelmatch colour threshold (0 … 1) under which two pixels are the same. */
  threshold: number;
  /** Largest fraction of differing pixels of a near copy. */
  max_diff: number;
}

/** A file the agent was given, as the copy check compares it. */
export interface InputFile {
  /** Path relative to the task folder, e.g. `inputs/goal.png`. */
  rel: string;
  sha256: string;
  /** Decoded pixels, for PNG inputs. */
  png?: Rgba;
}

/** A copy found: of which input, and how close. */
export interface CopyFound {
  rel: string;
  how: 'byte-identical' | 'near-identical';
  /** Fraction of pixels that differ from the input (0 for byte-identical copies). */
  diff: number;
  /** True when the input was scaled to the render's size before comparing. */
  scaled: boolean;
}

const MAX_FILES = 500;
const MAX_BYTES = 64 * 1024 * 1024;
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/**
 * The files under `entries` (task-relative files or folders) of `taskDir`, hashed, PNGs decoded.
 * Entries that do not exist are skipped (the default `inputs` folder may be absent); files that are
 * too large or not decodable still take part by hash.
 */
export async function inputFiles(taskDir: string, entries: readonly string[]): Promise<InputFile[]> {
  const out: InputFile[] = [];
  const root = path.resolve(taskDir);
  const visit = async (rel: string, depth: number): Promise<void> => {
    if (out.length >= MAX_FILES || depth > 6) return;
    const full = path.resolve(root, rel);
    if (full !== root && !full.startsWith(root + path.sep)) return;
    const st = await stat(full).catch(() => null);
    if (st === null) return;
    if (st.isDirectory()) {
      for (const name of (await readdir(full)).sort()) await visit(path.posix.join(rel, name), depth + 1);
      return;
    }
    if (!st.isFile() || st.size === 0 || st.size > MAX_BYTES) return;
    const bytes = await readFile(full);
    const f: InputFile = { rel, sha256: sha(bytes) };
    if (isPng(bytes))
      try {
        f.png = decodePng(bytes);
      } catch (err) {
        if (!isArtifactInvalid(err)) throw err;
      }
    out.push(f);
  };
  for (const e of entries) await visit(e, 0);
  return out;
}

/** `src` scaled to `w`×`h` by averaging the source pixels each target pixel covers. */
function resample(src: Rgba, w: number, h: number): Rgba {
  const data = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) {
    const y0 = Math.floor((y * src.height) / h);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * src.height) / h));
    for (let x = 0; x < w; x++) {
      const x0 = Math.floor((x * src.width) / w);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * src.width) / w));
      const acc = [0, 0, 0, 0];
      for (let sy = y0; sy < y1; sy++)
        for (let sx = x0; sx < x1; sx++)
          for (let c = 0; c < 4; c++) acc[c]! += src.data[4 * (sy * src.width + sx) + c]!;
      const n = (y1 - y0) * (x1 - x0);
      for (let c = 0; c < 4; c++) data[4 * (y * w + x) + c] = Math.round(acc[c]! / n);
    }
  }
  return { width: w, height: h, data };
}

/**
 * The input that `bytes` (decoded as `png`, when it is one) copies, or null. Byte-identical copies
 * are found for any file; near copies only between PNGs.
 */
export function findCopy(
  bytes: Buffer,
  png: Rgba | undefined,
  inputs: readonly InputFile[],
  rule: CopyRule,
): CopyFound | null {
  const h = sha(bytes);
  const same = inputs.find((f) => f.sha256 === h);
  if (same !== undefined) return { rel: same.rel, how: 'byte-identical', diff: 0, scaled: false };
  if (png === undefined) return null;
  let best: CopyFound | null = null;
  for (const f of inputs) {
    if (f.png === undefined) continue;
    const sameSize = f.png.width === png.width && f.png.height === png.height;
    const sameAspect =
      Math.abs(f.png.width / f.png.height - png.width / png.height) < 0.01 * (png.width / png.height);
    if (!sameSize && !sameAspect) continue;
    const ref = sameSize ? f.png : resample(f.png, png.width, png.height);
    const d = diffFraction(png, ref, rule.threshold);
    if (d <= rule.max_diff && (best === null || d < best.diff))
      best = { rel: f.rel, how: 'near-identical', diff: d, scaled: !sameSize };
  }
  return best;
}
