/**
 * State digests: recorded with each decision (`agent.decided.stateDigest`) and at the end
 * (`episode.ended.snapshotDigest`), and checked by fold-mode replay round by round.
 *
 * Machine 2 hashes engiloop's own `{ state, context }` (machines/fold.ts `ownState`), so an xstate
 * upgrade that changes its persisted snapshot cannot change a digest. Logs of machine 1 recorded
 * the hash of xstate's persisted snapshot, and are checked that way.
 */
import { createHash } from 'node:crypto';
import {
  isCurrent,
  legacyPersisted,
  ownState,
  type FoldedSnapshot,
  type LegacySnapshot,
} from '../../machines/index.js';

/** JSON with object keys sorted, so equal values always give equal text. */
export function stableStringify(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`).join(',')}}`;
}

/** SHA-256 of a snapshot's state, by the rules of the machine that folded it. */
export function snapshotDigest(s: FoldedSnapshot): string {
  const form = isCurrent(s) ? ownState(s) : legacyPersisted(s as LegacySnapshot);
  return createHash('sha256').update(stableStringify(form)).digest('hex');
}
