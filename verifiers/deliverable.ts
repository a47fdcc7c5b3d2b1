/**
 * Finding and reading a criterion's deliverable on the host, safely: the path must stay inside the
 * artifacts directory, and a missing or empty file becomes a failing verdict, not a throw.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CriterionInput, Verdict, VerifierContext } from './types.js';

/**
 * Name of the harness's record, in an artifacts directory, of deliverables it refused to take out
 * of a sandbox (over the size cap, a symbolic link): `{ "<path>": "<reason>" }`.
 */
export const REFUSED_FILE = '.engiloop-refused.json';

async function refusal(artifactsDir: string, rel: string): Promise<string | null> {
  try {
    const m = JSON.parse(await readFile(path.join(artifactsDir, REFUSED_FILE), 'utf8')) as Record<
      string,
      unknown
    >;
    const r = m[rel];
    return typeof r === 'string' ? r : null;
  } catch {
    return null;
  }
}

/** Host path of a deliverable, or `null` when the relative path would escape the artifacts dir. */
export function deliverablePath(ctx: Pick<VerifierContext, 'artifactsDir'>, rel: string): string | null {
  const root = path.resolve(ctx.artifactsDir);
  const full = path.resolve(root, rel);
  return full === root || !full.startsWith(root + path.sep) ? null : full;
}

/**
 * Checks that the criterion's deliverable is a non-empty regular file. Returns a failing verdict
 * (score 0) naming the problem, or `null` when the file is there. A criterion with no deliverable
 * passes this check.
 */
export async function checkDeliverable(
  ctx: Pick<VerifierContext, 'artifactsDir'>,
  criterion: Pick<CriterionInput, 'deliverable'>,
): Promise<Verdict | null> {
  const rel = criterion.deliverable;
  if (rel === undefined) return null;
  const fail = (reason: string): Verdict => ({ passed: false, score: 0, expected: rel, reason });
  const full = deliverablePath(ctx, rel);
  if (full === null) return fail(`deliverable path ${rel} escapes the artifacts directory`);
  const st = await stat(full).catch(() => null);
  if (st === null) {
    const why = await refusal(ctx.artifactsDir, rel);
    return fail(why === null ? `deliverable ${rel} is missing` : `deliverable refused: ${why}`);
  }
  if (!st.isFile()) return fail(`deliverable ${rel} is not a regular file`);
  if (st.size === 0) return { ...fail(`deliverable ${rel} is empty (0 bytes)`), measured: 0 };
  return null;
}

/**
 * Reads the criterion's deliverable. Returns either the bytes or a failing verdict (no deliverable
 * declared, missing, empty, unreadable). `mode: 'path'` checks the file and leaves the bytes empty.
 */
export async function readDeliverable(
  ctx: Pick<VerifierContext, 'artifactsDir'>,
  criterion: Pick<CriterionInput, 'deliverable'>,
  mode: 'bytes' | 'path' = 'bytes',
): Promise<{ path: string; rel: string; bytes: Buffer } | { verdict: Verdict }> {
  const rel = criterion.deliverable;
  if (rel === undefined)
    return { verdict: { passed: false, score: 0, reason: 'criterion names no deliverable to check' } };
  const problem = await checkDeliverable(ctx, criterion);
  if (problem !== null) return { verdict: problem };
  const full = deliverablePath(ctx, rel) as string;
  if (mode === 'path') return { path: full, rel, bytes: Buffer.alloc(0) };
  try {
    return { path: full, rel, bytes: await readFile(full) };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { verdict: { passed: false, score: 0, reason: `deliverable ${rel} could not be read: ${msg}` } };
  }
}
