/**
 * Retention of blobs (the `engiloop-blobs` object store), as pure functions of an episode's events
 * and the clock. `engiloop gc` (see `gc.ts`) applies it; this is the policy:
 *
 * - **An episode's age** is the time since its last event: its `episode.ended` when it ended, its
 *   last sign of life when it is still running or was abandoned by a dead worker.
 * - **Live** (age under `keepDays`, default 30): every blob it references is kept, so it can be
 *   resumed, forked from any snapshot, re-executed (`replay --execute` compares screenshots), and its
 *   full outputs and model exchanges read.
 * - **Analysis** (age from `keepDays` to `expireDays`, default 90): kept are what verdicts, their
 *   traces and a fork need: deliverables (`verification.completed.artifacts`), stage artifacts
 *   (`stage.checked.artifacts`), hand-offs, the snapshots taken after stage checks, the episode's
 *   last snapshot, and any other stored digest its events name (a field this build does not know).
 *   Dropped: interval snapshots other than the last (a fork from an earlier round restores the
 *   nearest kept snapshot before it, or a fresh sandbox, and re-runs the recorded actions as a
 *   resume does: slower, never impossible), externalised stdout/stderr and observation texts (the
 *   events keep a 16 KiB preview), screenshots and `view_image` images (so `replay --execute` of a
 *   GUI episode can no longer compare pixels), and model exchanges (the raw output stays in
 *   `agent.decided`).
 * - **Expired** (age `expireDays` or more): none of its blobs is kept for it. Its events stay
 *   (`ENGILOOP_EVENTS` never deletes), so results, folds and `replay` in fold mode still work.
 * - A blob is kept when any episode keeps it (blobs are shared by content), and the task tar of a
 *   job still queued on `ENGILOOP_JOBS` is kept.
 * - **Grace**: no blob written or touched less than `graceMs` ago (default 1 h) is deleted, whatever
 *   references it or not. A runner stores a blob before appending the event that names it, so an
 *   in-flight put is never taken for garbage. Unreferenced blobs older than that are deleted.
 */
import { RetentionSettingsError } from './errors.js';
import type { EpisodeEvent } from './events.js';

/** What a blob is to the episode that references it. */
export type BlobKind =
  | 'deliverable'
  | 'stage-artifact'
  | 'handoff'
  | 'snapshot-stage'
  | 'snapshot-last'
  | 'snapshot-interval'
  | 'output'
  | 'observation-text'
  | 'screenshot'
  | 'image'
  | 'exchanges'
  | 'task'
  | 'other';

/** Every kind, in report order. */
export const BLOB_KINDS: readonly BlobKind[] = [
  'deliverable',
  'stage-artifact',
  'handoff',
  'snapshot-stage',
  'snapshot-last',
  'snapshot-interval',
  'output',
  'observation-text',
  'screenshot',
  'image',
  'exchanges',
  'task',
  'other',
];

/** Kinds an episode in the analysis tier keeps (the rest go once it leaves the live tier). */
const KEPT_FOR_ANALYSIS: ReadonlySet<BlobKind> = new Set<BlobKind>([
  'deliverable',
  'stage-artifact',
  'handoff',
  'snapshot-stage',
  'snapshot-last',
  'task',
  'other',
]);

/** One digest an episode (or a queued job) references. */
export interface BlobRef {
  digest: string;
  kind: BlobKind;
}

/** Where an episode stands in the policy (see the module doc). */
export type EpisodeTier = 'live' | 'analysis' | 'expired';

/** The retention settings. */
export interface BlobRetention {
  /** Days after its last event during which an episode keeps every blob. Default 30. */
  keepDays: number;
  /** Days after its last event from which an episode keeps no blob. Default 90; ≥ `keepDays`. */
  expireDays: number;
  /** A blob written or touched less than this many ms ago is never deleted. Default 1 h. */
  graceMs: number;
}

/** Defaults of {@link BlobRetention}. */
export const DEFAULT_RETENTION: Readonly<BlobRetention> = Object.freeze({
  keepDays: 30,
  expireDays: 90,
  graceMs: 60 * 60_000,
});

/**
 * `p` over {@link DEFAULT_RETENTION}, checked.
 *
 * @throws RetentionSettingsError `RETENTION_INVALID` for a negative or non-finite field, or
 *   `expireDays` below `keepDays`.
 */
export function resolveRetention(p: Partial<BlobRetention> = {}): BlobRetention {
  const r = { ...DEFAULT_RETENTION, ...p };
  for (const k of ['keepDays', 'expireDays', 'graceMs'] as const)
    if (!Number.isFinite(r[k]) || r[k] < 0)
      throw new RetentionSettingsError(`retention ${k} must be a number ≥ 0 (got ${r[k]})`);
  if (r.expireDays < r.keepDays)
    throw new RetentionSettingsError(
      `retention expireDays (${r.expireDays}) must be ≥ keepDays (${r.keepDays})`,
    );
  return r;
}

const DAY_MS = 86_400_000;
const DIGEST = /^[0-9a-f]{64}$/;
/** 64-hex fields that are digests of machine snapshots, never blobs. */
const NOT_BLOBS = new Set(['stateDigest', 'snapshotDigest']);

/**
 * Every digest `events` reference, by kind, in log order (a digest may appear more than once). The
 * newest `workspace.snapshotted` gives `snapshot-last`; 64-hex strings in fields this function does
 * not know give `other`, so a field added later is kept conservatively rather than swept.
 */
function episodeRefs(events: readonly EpisodeEvent[]): BlobRef[] {
  const refs: BlobRef[] = [];
  const add = (digest: string | null | undefined, kind: BlobKind) => {
    if (digest) refs.push({ digest, kind });
  };
  let last = -1;
  events.forEach((e, i) => (e.type === 'workspace.snapshotted' ? (last = i) : 0));
  events.forEach((e, i) => {
    switch (e.type) {
      case 'workspace.snapshotted': {
        const kind =
          i === last ? 'snapshot-last' : e.reason === 'stage' ? 'snapshot-stage' : 'snapshot-interval';
        for (const s of Object.values(e.sandboxes)) add(s.digest, kind);
        break;
      }
      case 'verification.completed':
        for (const d of Object.values(e.artifacts)) add(d, 'deliverable');
        break;
      case 'stage.checked':
        for (const d of Object.values(e.artifacts)) add(d, 'stage-artifact');
        break;
      case 'artifact.handed_off':
        add(e.digest, 'handoff');
        break;
      case 'action.executed':
        add(e.result.blobs?.stdout, 'output');
        add(e.result.blobs?.stderr, 'output');
        break;
      case 'observation.recorded':
        add(e.textBlob, 'observation-text');
        add(e.screenshot, 'screenshot');
        for (const im of e.images ?? []) add(im.digest, im.digest === e.screenshot ? 'screenshot' : 'image');
        break;
      case 'agent.decided':
        add(e.call?.exchanges, 'exchanges');
        break;
      // Other types name no blob today; a digest a later type adds is caught as `other` below.
    }
  });
  const known = new Set(refs.map((r) => r.digest));
  const other = new Set<string>();
  for (const e of events) hexStrings(e, other, 0);
  for (const d of other) if (!known.has(d)) refs.push({ digest: d, kind: 'other' });
  return refs;
}

/** Collects 64-hex strings anywhere in `v` (skipping {@link NOT_BLOBS} fields). */
function hexStrings(v: unknown, out: Set<string>, depth: number): void {
  if (typeof v === 'string') {
    if (v.length === 64 && DIGEST.test(v)) out.add(v);
  } else if (Array.isArray(v)) {
    if (depth < 32) for (const x of v) hexStrings(x, out, depth + 1);
  } else if (v && typeof v === 'object' && depth < 32) {
    for (const [k, x] of Object.entries(v)) if (!NOT_BLOBS.has(k)) hexStrings(x, out, depth + 1);
  }
}

/** The `at` of the episode's newest event (its end, or its last sign of life); null when empty. */
function lastActivity(events: readonly EpisodeEvent[]): number | null {
  let at: number | null = null;
  for (const e of events) if (typeof e.at === 'number' && (at === null || e.at > at)) at = e.at;
  return at;
}

/** The tier of an episode whose last event is at `lastAt`, at time `now`. */
function episodeTier(lastAt: number, now: number, p: BlobRetention): EpisodeTier {
  const age = now - lastAt;
  if (age < p.keepDays * DAY_MS) return 'live';
  if (age < p.expireDays * DAY_MS) return 'analysis';
  return 'expired';
}

/** Whether an episode in `tier` keeps a blob of `kind`. */
function tierKeeps(tier: EpisodeTier, kind: BlobKind): boolean {
  return tier === 'live' || (tier === 'analysis' && KEPT_FOR_ANALYSIS.has(kind));
}

/** A reference with the policy's answer. */
export interface RetainedRef extends BlobRef {
  keep: boolean;
}

/**
 * The episode's tier and each of its references with whether the policy keeps it. An episode with
 * no event is live (nothing to judge it by).
 */
export function episodeRetention(
  events: readonly EpisodeEvent[],
  now: number,
  p: BlobRetention,
): { tier: EpisodeTier; ended: boolean; refs: RetainedRef[] } {
  const lastAt = lastActivity(events);
  const tier = lastAt === null ? 'live' : episodeTier(lastAt, now, p);
  const ended = events.at(-1)?.type === 'episode.ended';
  return { tier, ended, refs: episodeRefs(events).map((r) => ({ ...r, keep: tierKeeps(tier, r.kind) })) };
}

/** What the references of every episode say about one digest. */
export interface BlobMark {
  /** The kind of a reference that keeps it, else of the first reference seen. */
  kind: BlobKind;
  keep: boolean;
}

/** Adds `refs` to `marks`: a digest is kept when any reference keeps it. */
export function addMarks(marks: Map<string, BlobMark>, refs: Iterable<RetainedRef>): void {
  for (const r of refs) {
    const m = marks.get(r.digest);
    if (!m || (r.keep && !m.keep)) marks.set(r.digest, { kind: r.kind, keep: r.keep });
  }
}

/** Why a stored object is kept or deleted. */
export type SweepReason = 'needed' | 'grace' | 'unneeded' | 'unreferenced';

/**
 * The policy's answer for one stored object: `needed` (a reference keeps it), `grace` (written or
 * touched less than `graceMs` before `now`), else deleted as `unneeded` (only dropping references)
 * or `unreferenced`.
 */
export function sweepDecision(
  lastUsed: number,
  mark: BlobMark | undefined,
  now: number,
  p: BlobRetention,
): { remove: boolean; reason: SweepReason } {
  if (mark?.keep) return { remove: false, reason: 'needed' };
  if (now - lastUsed < p.graceMs) return { remove: false, reason: 'grace' };
  return { remove: true, reason: mark ? 'unneeded' : 'unreferenced' };
}
