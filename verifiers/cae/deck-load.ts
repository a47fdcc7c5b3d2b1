/**
 * Loading a delivered CalculiX deck with the files it `*INCLUDE`s, from the artifacts directory only.
 * An include is followed when it is a relative path that stays inside the artifacts directory (no
 * absolute path, no `..`, no symbolic link out of it) and was delivered; anything else is refused
 * with the line that names it. ccx reads an include relative to its working directory, so the
 * paths are taken relative to the deck's folder, and the files are placed the same way for a solve.
 */
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { deliverablePath } from '../deliverable.js';
import { ArtifactInvalidError } from '../errors.js';
import type { VerifierContext } from '../types.js';
import type { Deck } from './deck-model.js';
import { includesOf, parseDeck } from './deck-parse.js';

/** A deck read from the artifacts, ready to check and to solve. */
export interface LoadedDeck {
  /** The deck's path relative to the artifacts directory. */
  rel: string;
  deck: Deck;
  /** The deck and every include: host path, and path in a solver's working directory. */
  files: { hostPath: string; dest: string; bytes: Buffer }[];
}

const MAX_INCLUDES = 64;

/**
 * Reads `rel` and its includes (recursively) and parses them. Throws `ArtifactInvalidError` naming
 * a refused or missing include, or a deck that cannot be read.
 */
export async function loadDeck(
  ctx: Pick<VerifierContext, 'artifactsDir'>,
  rel: string,
  limitMs: number,
): Promise<LoadedDeck> {
  const root = await realpath(ctx.artifactsDir);
  const mainHost = deliverablePath(ctx, rel);
  if (mainHost === null) throw new ArtifactInvalidError(`deck ${rel} is outside the artifacts directory`);
  const mainReal = await realpath(mainHost).catch(() => null);
  if (mainReal === null) throw new ArtifactInvalidError(`deck ${rel} was not delivered`);
  if (!mainReal.startsWith(root + path.sep))
    throw new ArtifactInvalidError(`deck ${rel} links outside the artifacts directory — refused`);
  const mainBytes = await readFile(mainReal);
  const files = [{ hostPath: mainHost, dest: path.posix.basename(rel), bytes: mainBytes }];
  const included = new Map<string, { rel: string; text: string }>();
  const queue = [{ file: rel, text: mainBytes.toString('latin1') }];
  while (queue.length > 0) {
    const { file, text } = queue.shift()!;
    for (const { input, line } of includesOf(text)) {
      if (included.has(input)) continue;
      const at = `*INCLUDE, INPUT=${input} (${file} line ${line})`;
      if (input === '') throw new ArtifactInvalidError(`${at}: no file named`);
      if (path.isAbsolute(input) || input.split(/[\\/]/).includes('..'))
        throw new ArtifactInvalidError(`${at}: points outside the delivered files — refused`);
      const incRel = relJoin(rel, input);
      const host = deliverablePath(ctx, incRel);
      const real = host === null ? null : await realpath(host).catch(() => undefined);
      if (real === undefined) throw new ArtifactInvalidError(`${at}: ${incRel} was not delivered`);
      if (real === null || !real.startsWith(root + path.sep))
        throw new ArtifactInvalidError(`${at}: points outside the delivered files — refused`);
      if (included.size >= MAX_INCLUDES)
        throw new ArtifactInvalidError(`${at}: more than ${MAX_INCLUDES} includes`);
      const bytes = await readFile(real);
      const t = bytes.toString('latin1');
      included.set(input, { rel: incRel, text: t });
      files.push({ hostPath: real, dest: path.posix.normalize(input), bytes });
      queue.push({ file: incRel, text: t });
    }
  }
  const deck = parseDeck({ rel, text: mainBytes.toString('latin1') }, included, limitMs);
  return { rel, deck, files };
}

/** `a/b/../c.inp` → `a/c.inp`, as a path relative to the artifacts dir (posix). */
function relJoin(fromFile: string, input: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), input));
}
