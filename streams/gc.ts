/**
 * Mark and sweep of the blob bucket by the policy of `retention.ts`: list the bucket, read every
 * episode log and the queued jobs (mark), read again the episodes that were still open or appeared
 * meanwhile, then delete what no one keeps (sweep), checking each object's age once more just before.
 *
 * Safe beside running episodes: only objects listed before the scan can go, only when older than
 * the grace period (checked again right before each delete), so a blob stored for an event not yet
 * appended is spared. One race stays open until puts {@link BlobStore.touch} content they find
 * already stored: such a put uploads nothing and leaves an old, otherwise unneeded object old; if
 * the event naming it is appended after the recheck read that episode, the object can go.
 */
import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import type { BlobStore } from './blobs.js';
import type { EpisodeLog } from './log.js';
import { JOB_SUBJECT_PREFIX, JOBS_STREAM, type Job } from './jobs.js';
import {
  addMarks,
  BLOB_KINDS,
  episodeRetention,
  resolveRetention,
  sweepDecision,
  type BlobKind,
  type BlobMark,
  type BlobRetention,
  type EpisodeTier,
} from './retention.js';

/** Options of {@link collectGarbage}. */
export interface GcOptions {
  /** Retention settings over `DEFAULT_RETENTION`. */
  policy?: Partial<BlobRetention>;
  /** Report what would go, delete nothing. Default false. */
  dryRun?: boolean;
  /** Clock (ms since the epoch). Default `Date.now`. */
  now?: () => number;
  /** Episode logs read, and objects deleted, at once. Default 8. */
  concurrency?: number;
  /** Called as the phases advance (for a progress line). */
  onProgress?: (p: GcProgress) => void;
  /** Stops the sweep (deletions under way finish); what was deleted so far is reported. */
  signal?: AbortSignal;
}

/** Where a collection is. */
export interface GcProgress {
  phase: 'list' | 'scan' | 'recheck' | 'sweep';
  done: number;
  total: number;
}

/** Objects and their bytes. */
export interface Tally {
  objects: number;
  bytes: number;
}

/** A kind of blob in a report: a {@link BlobKind}, or no reference at all. */
export type ReportKind = BlobKind | 'unreferenced';

/** What a collection found and did. */
export interface GcReport {
  dryRun: boolean;
  /** Clock reading the policy was applied at. */
  at: number;
  policy: BlobRetention;
  /** Episodes by tier, and how many of them had not ended. */
  episodes: Record<EpisodeTier, number> & { open: number };
  /** Jobs still queued (their task tars are kept). */
  jobs: number;
  /** Objects kept, by kind (`grace` counts, within them, those kept only for being young). */
  kept: Partial<Record<ReportKind, Tally>>;
  /** Objects deleted (would be, in a dry run), by kind. */
  deleted: Partial<Record<ReportKind, Tally>>;
  /** Kept only because written or touched within the grace period. */
  grace: Tally;
  totals: { kept: Tally; deleted: Tally };
  /** Objects whose name is not a digest: never touched. */
  foreign: number;
  /** Digests a keeping reference names that are not in the bucket (deleted earlier, or never stored). */
  missing: number;
  /** Deletions that failed (the object stays). */
  failed: { digest: string; message: string }[];
  /** The sweep was stopped by the signal before it finished. */
  interrupted: boolean;
  durationMs: number;
}

const DIGEST = /^[0-9a-f]{64}$/;

/**
 * Applies the retention policy to `blobs`, reading every episode of `log` and the jobs queued on
 * `ENGILOOP_JOBS` (through `log.jsm`).
 *
 * @throws RetentionSettingsError `RETENTION_INVALID` for bad `o.policy`.
 * @throws CodecError / UpcastError when an episode log cannot be read: nothing is deleted, since
 *   its references are unknown.
 */
export async function collectGarbage(
  log: EpisodeLog,
  blobs: BlobStore,
  o: GcOptions = {},
): Promise<GcReport> {
  const policy = resolveRetention(o.policy);
  const clock = o.now ?? Date.now;
  const t0 = Date.now();
  const at = clock();
  const progress = o.onProgress ?? (() => {});

  progress({ phase: 'list', done: 0, total: 0 });
  const objects = await blobs.list();
  progress({ phase: 'list', done: objects.length, total: objects.length });

  const marks = new Map<string, BlobMark>();
  const episodes = { live: 0, analysis: 0, expired: 0, open: 0 };
  const open = new Set<string>();
  const ids = await log.listEpisodes();
  await forEachLimit(
    ids,
    o.concurrency ?? 8,
    async (id) => {
      const r = episodeRetention(await log.read(id), at, policy);
      addMarks(marks, r.refs);
      episodes[r.tier]++;
      if (!r.ended) open.add(id);
    },
    (done) => progress({ phase: 'scan', done, total: ids.length }),
  );
  episodes.open = open.size;
  let jobs = await queuedTaskBlobs(log.jsm);
  addMarks(marks, jobs);

  // Episodes still open may have appended references meanwhile; new ones may have started.
  const seen = new Set(ids);
  const again = [...open, ...(await log.listEpisodes()).filter((id) => !seen.has(id))];
  await forEachLimit(
    again,
    o.concurrency ?? 8,
    async (id) => addMarks(marks, episodeRetention(await log.read(id), at, policy).refs),
    (done) => progress({ phase: 'recheck', done, total: again.length }),
  );
  jobs = await queuedTaskBlobs(log.jsm);
  addMarks(marks, jobs);

  const report: GcReport = {
    dryRun: o.dryRun ?? false,
    at,
    policy,
    episodes,
    jobs: jobs.length,
    kept: {},
    deleted: {},
    grace: { objects: 0, bytes: 0 },
    totals: { kept: { objects: 0, bytes: 0 }, deleted: { objects: 0, bytes: 0 } },
    foreign: 0,
    missing: 0,
    failed: [],
    interrupted: false,
    durationMs: 0,
  };
  const stored = new Set(objects.map((b) => b.digest));
  // `other` digests are any 64-hex strings in the events: most never named a blob.
  for (const [d, m] of marks) if (m.keep && m.kind !== 'other' && !stored.has(d)) report.missing++;

  const doomed: { digest: string; bytes: number; kind: ReportKind }[] = [];
  for (const b of objects) {
    if (!DIGEST.test(b.digest)) {
      report.foreign++;
      continue;
    }
    const mark = marks.get(b.digest);
    const kind: ReportKind = mark?.kind ?? 'unreferenced';
    const d = sweepDecision(b.lastUsed, mark, at, policy);
    if (d.remove) doomed.push({ digest: b.digest, bytes: b.bytes, kind });
    else keep(report, kind, b.bytes, d.reason === 'grace');
  }

  if (report.dryRun) for (const b of doomed) count(report.deleted, b.kind, b.bytes);
  else
    await forEachLimit(
      doomed,
      o.concurrency ?? 8,
      async (b) => {
        if (o.signal?.aborted) return void (report.interrupted = true);
        try {
          // Used again since the listing (a put, a touch)? Then it is young and stays.
          const now = await blobs.stat(b.digest);
          if (now && sweepDecision(now.lastUsed, marks.get(b.digest), clock(), policy).remove) {
            const freed = await blobs.delete(b.digest, log.jsm);
            if (freed !== null) count(report.deleted, b.kind, freed);
            else if (await blobs.has(b.digest)) keep(report, b.kind, now.bytes, true); // touched meanwhile
          } else if (now) keep(report, b.kind, now.bytes, true);
        } catch (err) {
          report.failed.push({ digest: b.digest, message: err instanceof Error ? err.message : String(err) });
        }
      },
      (done) => progress({ phase: 'sweep', done, total: doomed.length }),
    );
  for (const t of Object.values(report.deleted)) {
    report.totals.deleted.objects += t.objects;
    report.totals.deleted.bytes += t.bytes;
  }
  report.durationMs = Date.now() - t0;
  return report;
}

function count(into: Partial<Record<ReportKind, Tally>>, kind: ReportKind, bytes: number): void {
  const t = (into[kind] ??= { objects: 0, bytes: 0 });
  t.objects++;
  t.bytes += bytes;
}

function keep(r: GcReport, kind: ReportKind, bytes: number, grace: boolean): void {
  count(r.kept, kind, bytes);
  r.totals.kept.objects++;
  r.totals.kept.bytes += bytes;
  if (grace) {
    r.grace.objects++;
    r.grace.bytes += bytes;
  }
}

/** Report kinds in display order. */
export const REPORT_KINDS: readonly ReportKind[] = [...BLOB_KINDS, 'unreferenced'];

/**
 * The task tars of the jobs on `ENGILOOP_JOBS` (work-queue retention: only jobs not yet acknowledged
 * are there), read message by message without consuming them; `[]` when the stream does not exist.
 */
async function queuedTaskBlobs(
  jsm: JetStreamManager,
): Promise<{ digest: string; kind: 'task'; keep: true }[]> {
  const out: { digest: string; kind: 'task'; keep: true }[] = [];
  try {
    await jsm.streams.info(JOBS_STREAM);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return out;
    throw err;
  }
  for (let seq = 0; ;) {
    // STREAM.MSG.GET takes `next_by_subj` (nats-server ≥ 2.9); the client's type lists only seq/last.
    const query = { seq, next_by_subj: `${JOB_SUBJECT_PREFIX}>` } as unknown as { seq: number };
    const m = await jsm.streams.getMessage(JOBS_STREAM, query);
    if (!m) return out;
    try {
      const job = JSON.parse(m.string()) as Partial<Job>;
      if (typeof job.taskBlob === 'string') out.push({ digest: job.taskBlob, kind: 'task', keep: true });
    } catch {
      // Not a job engiloop wrote: it names no blob.
    }
    seq = m.seq + 1;
  }
}

/** Runs `fn` over `items`, `limit` at a time, calling `after` with the count finished so far. */
async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
  after: (done: number) => void,
): Promise<void> {
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < items.length) {
      await fn(items[next++]!);
      after(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
