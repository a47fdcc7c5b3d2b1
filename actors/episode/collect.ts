/**
 * Taking deliverables out of the sandboxes: streamed to a host file (hashed on the way, stored in
 * the object store from the file), capped at `limits.file_cap_mb` at the file's apparent size, and
 * never through a symbolic link. A refused file is the agent's failure for that deliverable: the
 * refusal is written beside the artifacts (`.engiloop-refused.json`, the harness's file, out of the
 * agent's reach) and the verifiers fail every criterion that reads it with the reason.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { REFUSED_FILE } from '../../verifiers/index.js';
import { defaultSandbox } from '../../tasks/index.js';
import type { FileRefusal } from '../sandbox/index.js';
import type { EffectScope } from './scope.js';

/** A deliverable as collected: stored (with its digest), missing, or refused with the reason. */
export type Collected =
  | { kind: 'stored'; sandbox: string; digest: string; bytes: number; mtime: number }
  | { kind: 'missing' }
  | { kind: 'refused'; sandbox: string; refusal: FileRefusal };

/** Bytes of the largest file taken out of a sandbox of this task. */
export function fileCapBytes(s: EffectScope): number {
  return s.lt.task.limits.file_cap_mb * 2 ** 20;
}

/** The episode's store budget and what is left of it (see `EffectScope.stored`). */
export function storeBudget(s: EffectScope): { budget: number; used: number; left: number } {
  const budget = s.lt.task.limits.store_budget_mb * 2 ** 20;
  const used = s.stored.bytes;
  return { budget, used, left: Math.max(0, budget - used) };
}

/** Counts `bytes` of content `digest` against the store budget, once per digest. */
export function chargeStore(s: EffectScope, digest: string, bytes: number): void {
  const st = s.stored;
  if (st.digests.has(digest)) return;
  st.digests.add(digest);
  st.bytes += bytes;
}

const mib = (n: number): string => (n / 2 ** 20).toFixed(1);

let seq = 0;

/**
 * Copies deliverable `d` to `dest` on the host and stores it by digest. `sandbox: "*"`: from every
 * sandbox that has it, keeping the copy written last (the app the agent finally used).
 */
export async function collectDeliverable(
  s: EffectScope,
  d: { path: string; sandbox?: string | undefined },
  dest: string,
): Promise<Collected> {
  const names = d.sandbox === '*' ? [...s.sandboxes.keys()] : [d.sandbox ?? defaultSandbox(s.lt.task)];
  let best: Extract<Collected, { kind: 'stored' }> | null = null;
  let refused: Extract<Collected, { kind: 'refused' }> | null = null;
  await mkdir(dirname(dest), { recursive: true });
  for (const name of names) {
    const sb = s.sandboxes.get(name);
    if (!sb) continue;
    const tmp = `${dest}.part-${process.pid}-${++seq}`;
    const r = await sb.copyOut(d.path, tmp, fileCapBytes(s));
    if (!r.ok) {
      await rm(tmp, { force: true });
      if (r.refusal.kind !== 'missing') refused ??= { kind: 'refused', sandbox: name, refusal: r.refusal };
      continue;
    }
    // Newest first; equal times keep declaration order.
    if (best === null || r.mtime > best.mtime) {
      await rename(tmp, dest);
      best = { kind: 'stored', sandbox: name, digest: r.value, bytes: r.size, mtime: r.mtime };
    } else await rm(tmp, { force: true });
  }
  if (best) {
    // Content the episode already stored costs nothing; new content must fit what is left.
    const store = storeBudget(s);
    if (!s.stored.digests.has(best.digest) && best.bytes > store.left) {
      await rm(dest, { force: true });
      const message = `${d.path} (${best.bytes} bytes) would pass the episode's store budget: ${mib(store.used)} of ${mib(store.budget)} MiB used (limits.store_budget_mb)`;
      return {
        kind: 'refused',
        sandbox: best.sandbox,
        refusal: { kind: 'too_large', size: best.bytes, cap: store.left, message },
      };
    }
    await s.deps.blobs.putFile(dest, best.digest);
    chargeStore(s, best.digest, best.bytes);
    return best;
  }
  return refused ?? { kind: 'missing' };
}

/** Records why deliverables were refused, for `checkDeliverable` (verifiers/deliverable.ts). */
export async function writeRefusals(artifactsDir: string, refusals: Record<string, string>): Promise<void> {
  const file = join(artifactsDir, REFUSED_FILE);
  if (Object.keys(refusals).length === 0) {
    await rm(file, { force: true });
    return;
  }
  await mkdir(artifactsDir, { recursive: true });
  await writeFile(file, JSON.stringify(refusals));
}
