/**
 * File formats by their first bytes: the one place that knows each magic number. The content
 * sniffers (`sniff.ts`), the verifiers that reopen a file, the runner (which images an agent may
 * see) and the GUI sandbox (screenshots) all ask here, so no two of them can disagree on what a PNG is.
 * Heads only: whether a file is whole is `sniff.ts`'s question.
 */

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** True when `b` starts with the 8-byte PNG signature. */
export function isPng(b: Buffer): boolean {
  return b.length >= 8 && b.subarray(0, 8).equals(PNG_SIGNATURE);
}

/**
 * Width and height from a PNG's IHDR chunk (big-endian at bytes 16 and 20), or null when `b` is no
 * PNG or stops before its header.
 */
export function pngSize(b: Buffer): { width: number; height: number } | null {
  if (b.length < 24 || !isPng(b) || b.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** True when `b` starts with a JPEG start-of-image marker and a segment marker (`FF D8 FF`). */
export function isJpeg(b: Buffer): boolean {
  return b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
}

/** True when `b` starts with a GLB header (`glTF` magic; the header is 12 bytes). */
export function isGlb(b: Buffer): boolean {
  return b.length >= 12 && b.toString('latin1', 0, 4) === 'glTF';
}

/**
 * The container a `.blend` comes in, by its first bytes: `plain` (`BLENDER`), `gzip` (Blender < 3
 * compresses so) or `zstd` (Blender ≥ 3); null for none of them. A gzip or zstd stream need not
 * hold a `.blend`: `sniff.ts` looks inside a gzip one.
 */
export function blendContainer(b: Buffer): 'plain' | 'gzip' | 'zstd' | null {
  if (b.toString('latin1', 0, 7) === 'BLENDER') return 'plain';
  if (b[0] === 0x1f && b[1] === 0x8b) return 'gzip';
  if (b.length >= 4 && b.readUInt32LE(0) === 0xfd2fb528) return 'zstd';
  return null;
}

/**
 * The media type of an image an agent may be shown (a PNG or a JPEG) by its first bytes, else null.
 *
 * @example imageMediaType(await readFile('shot.png')) // 'image/png'
 */
export function imageMediaType(b: Buffer): 'image/png' | 'image/jpeg' | null {
  return isPng(b) ? 'image/png' : isJpeg(b) ? 'image/jpeg' : null;
}
