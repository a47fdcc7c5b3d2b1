/**
 * Verdict traces: the deliverables re-verified at every workspace snapshot of an episode, on the
 * host (no sandbox: each deliverable is taken out of the snapshot's tar, see trace-extract.ts), and
 * the recorded final verification as the last point, so each criterion's measured value and
 * verdict can be followed over the rounds to where the artifact was last right and first went wrong.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BlobStore, EpisodeEvent, WorkspaceSnapshotted } from '../../streams/index.js';
import { defaultSandbox, type LoadedTask } from '../../tasks/index.js';
import { REFUSED_FILE, type RunTool } from '../../verifiers/index.js';
import type { EpisodeDeps } from '../episode/index.js';
import { AnalysisError } from './errors.js';
import { archiveName, extractEntries, type Extracted, type WantedEntry } from './trace-extract.js';
import { criterionSeries, rightWrong, type TracePoint, type VerdictTrace } from './trace-series.js';

/** What a trace needs: the object store (snapshots), the verifiers and the tool runner they use. */
export interface TraceDeps {
  blobs: Pick<BlobStore, 'get'>;
  verify: EpisodeDeps['verify'];
  runTool: RunTool;
}

/** Options of {@link traceEpisode}. */
export interface TraceOptions {
  /** Called after each point with the points done and their number. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
  /** Where the per-point artifact folders are made (and removed). Default: the OS temp dir. */
  tmpDir?: string;
}

const MIB = 2 ** 20;

/**
 * Re-verifies `lt`'s deliverables at every `workspace.snapshotted` event of `events` and adds the
 * recorded `verification.completed` as the last point. `seqs[i]` is the stream sequence of
 * `events[i]` (the 1-based position without it).
 * @throws AnalysisError `NOT_AN_EPISODE` when `events` does not start with `episode.started`.
 * @example
 * ```ts
 * const raw = await log.readRaw(id);
 * const events = raw.map((r) => decodeEvent(r.data, { subject: r.subject, seq: r.seq }));
 * const trace = await traceEpisode(events, raw.map((r) => r.seq), lt, { blobs, verify: verifyTask, runTool });
 * console.log(traceReport(trace));
 * ```
 */
export async function traceEpisode(
  events: readonly EpisodeEvent[],
  seqs: readonly number[] | undefined,
  lt: LoadedTask,
  deps: TraceDeps,
  o: TraceOptions = {},
): Promise<VerdictTrace> {
  const first = events[0];
  if (first?.type !== 'episode.started')
    throw new AnalysisError('NOT_AN_EPISODE', 'the log does not start with episode.started');
  const seqOf = (i: number) => seqs?.[i] ?? i + 1;
  const snaps = events.flatMap((e, i) => (e.type === 'workspace.snapshotted' ? [{ e, seq: seqOf(i) }] : []));
  const finalAt = events.findLastIndex((e) => e.type === 'verification.completed');
  const total = snaps.length + (finalAt < 0 ? 0 : 1);
  const points: TracePoint[] = [];
  const perPoint: number[] = [];
  for (const { e, seq } of snaps) {
    o.signal?.throwIfAborted();
    const t0 = performance.now();
    points.push({ round: e.round, seq, source: 'snapshot', ...(await snapshotPoint(lt, e, deps, o)) });
    perPoint.push(performance.now() - t0);
    o.onProgress?.(points.length, total);
  }
  if (finalAt >= 0) {
    points.push(finalPoint(events, finalAt, seqOf(finalAt)));
    perPoint.push(0);
    o.onProgress?.(points.length, total);
  }
  return {
    episodeId: first.episodeId,
    taskId: first.task.id,
    points,
    criteria: criterionSeries(points),
    ...rightWrong(points.filter((p) => p.error === undefined)),
    costMs: { perPoint, total: perPoint.reduce((a, b) => a + b, 0) },
  };
}

/** The recorded final verification, scored on its criteria alone. */
function finalPoint(events: readonly EpisodeEvent[], at: number, seq: number): TracePoint {
  const e = events[at] as Extract<EpisodeEvent, { type: 'verification.completed' }>;
  let round = 0;
  for (let i = 0; i < at; i++) {
    const r = (events[i] as { round?: unknown }).round;
    if (typeof r === 'number' && r > round) round = r;
  }
  const criteriaPassed = e.verdicts.length > 0 && e.verdicts.every((v) => v.passed);
  return {
    round,
    seq,
    source: 'final',
    verdicts: e.verdicts,
    score: e.stages?.finalScore ?? e.score,
    passed: e.stages ? criteriaPassed : e.passed,
    refused: {},
  };
}

type PointBody = Omit<TracePoint, 'round' | 'seq' | 'source'>;

/** Takes the deliverables out of one snapshot into a fresh folder and verifies them there. */
async function snapshotPoint(
  lt: LoadedTask,
  snap: WorkspaceSnapshotted,
  deps: TraceDeps,
  o: TraceOptions,
): Promise<PointBody> {
  const { task } = lt;
  const tmp = await mkdtemp(join(o.tmpDir ?? tmpdir(), 'engiloop-trace-'));
  try {
    const artifactsDir = join(tmp, 'artifacts');
    await mkdir(artifactsDir);
    const boxes = Object.keys(task.environment.sandboxes);
    // Per sandbox, the entries to take; each deliverable's candidates (one per sandbox it may be in).
    const wanted = new Map<string, WantedEntry[]>();
    const candidates = task.deliverables.map((d) => {
      const names = d.sandbox === '*' ? boxes : [d.sandbox ?? defaultSandbox(task)];
      return names.flatMap((name) => {
        const spec = task.environment.sandboxes[name];
        if (!spec || !snap.sandboxes[name]) return [];
        const w = {
          entry: archiveName(spec.workdir, d.path),
          dest: join(tmp, `sb${boxes.indexOf(name)}`, d.path),
        };
        wanted.set(name, [...(wanted.get(name) ?? []), w]);
        return [{ name, w }];
      });
    });
    const got = new Map<string, Map<string, Extracted>>();
    for (const [name, list] of wanted) {
      let tgz: Buffer;
      try {
        tgz = await deps.blobs.get(snap.sandboxes[name]!.digest);
      } catch (e) {
        const error = `snapshot of sandbox "${name}" could not be read from the object store: ${(e as Error).message}`;
        return { verdicts: [], score: 0, passed: false, refused: {}, error };
      }
      const diskCap = task.limits.disk_mb * MIB * 2 + 256 * MIB;
      got.set(name, await extractEntries(tgz, list, task.limits.file_cap_mb * MIB, diskCap));
    }
    const refused: Record<string, string> = {};
    for (const [i, d] of task.deliverables.entries()) {
      // As the episode collects (actors/episode/collect.ts): newest first, ties in declaration order.
      let best: { dest: string; mtime: number } | null = null;
      let why: string | null = null;
      for (const { name, w } of candidates[i]!) {
        const x = got.get(name)?.get(w.entry);
        if (x?.kind === 'file' && (best === null || x.mtime > best.mtime))
          best = { dest: w.dest, mtime: x.mtime };
        if (x?.kind === 'refused') why ??= x.reason;
      }
      if (best) {
        const dest = join(artifactsDir, d.path);
        await mkdir(join(dest, '..'), { recursive: true });
        await rename(best.dest, dest);
      } else if (why !== null) refused[d.path] = why;
    }
    if (Object.keys(refused).length)
      await writeFile(join(artifactsDir, REFUSED_FILE), JSON.stringify(refused));
    try {
      const v = await deps.verify(lt, {
        artifactsDir,
        runTool: deps.runTool,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      return { verdicts: v.verdicts, score: v.score, passed: v.passed, refused };
    } catch (e) {
      if (o.signal?.aborted) throw e;
      return {
        verdicts: [],
        score: 0,
        passed: false,
        refused,
        error: `verification failed: ${(e as Error).message}`,
      };
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
