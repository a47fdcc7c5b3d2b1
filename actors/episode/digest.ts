import { createHash } from 'node:crypto';
import { persist, type EpisodeSnapshot } from '../../machines/index.js';

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

/** SHA-256 of a snapshot's persisted form: recorded in `episode.ended`, checked by fold. */
export function snapshotDigest(s: EpisodeSnapshot): string {
  return createHash('sha256')
    .update(stableStringify(persist(s)))
    .digest('hex');
}
