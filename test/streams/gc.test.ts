/**
 * `engiloop gc` against a real nats-server: episodes of every age written through the real log
 * (their `at` set in the past), blobs in the real bucket, and assertions on what the bucket holds
 * after a dry run and after a sweep.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BlobStore,
  collectGarbage,
  EpisodeLog,
  EVENT_VERSION,
  JobQueue,
  type BlobKind,
  type EpisodeEvent,
  type EventDraft,
  type GcReport,
} from '../../streams/index.js';
import { cli } from '../helpers/cli.js';
import { startTestNats, type TestNats } from '../helpers/nats.js';

const DAY = 86_400_000;
/** Grace period of these tests: every blob below is older than this when gc runs, but `young`. */
const GRACE_MS = 1_500;

let nats: TestNats;
let log: EpisodeLog;
let blobs: BlobStore;
const t0 = Date.now();
/** Every blob stored, by name, and the digest → name map. */
const d: Record<string, string> = {};
const sizes = new Map<string, number>();

async function put(name: string, bytes = 1_000): Promise<string> {
  const body = Buffer.alloc(bytes, name);
  d[name] = await blobs.put(body);
  sizes.set(d[name]!, bytes);
  return d[name]!;
}

/** Appends `drafts` as one episode, the i-th event at `at + i` ms. */
async function episode(id: string, at: number, drafts: EventDraft[]): Promise<void> {
  const w = log.writer(id);
  for (const [i, e] of drafts.entries())
    await w.append({ ...e, v: EVENT_VERSION, at: at + i } as EpisodeEvent);
}

const started = (id: string): EventDraft => ({
  type: 'episode.started',
  episodeId: id,
  runId: 'run-gc',
  machine: 2,
  flags: [],
  task: { id: 'bracket', title: 'Bracket' },
  agent: 'scripted',
});
const ended: EventDraft = {
  type: 'episode.ended',
  status: 'done',
  score: 1,
  rounds: 3,
  snapshotDigest: 'ab'.repeat(32),
};
const snapshot = (round: number, reason: 'interval' | 'stage', ...digests: string[]): EventDraft => ({
  type: 'workspace.snapshotted',
  round,
  reason,
  sandboxes: Object.fromEntries(digests.map((x, i) => [`sb${i}`, { digest: x, bytes: sizes.get(x)! }])),
  durationMs: 5,
});
const executed = (round: number, stdout?: string, stderr?: string): EventDraft => ({
  type: 'action.executed',
  round,
  index: 0,
  action: { type: 'shell', command: 'make' },
  result: {
    stdout: 'preview',
    stderr: '',
    exitCode: 0,
    durationMs: 10,
    truncated: false,
    timedOut: false,
    blobs: { ...(stdout ? { stdout } : {}), ...(stderr ? { stderr } : {}) },
  },
});
const verified = (artifacts: Record<string, string | null>): EventDraft => ({
  type: 'verification.completed',
  verdicts: [],
  score: 1,
  passed: true,
  artifacts,
});

/** What the policy must delete (names), given the episodes written in `beforeAll`. */
const DOOMED = [
  // old (analysis tier): everything but artifacts, stage and last snapshots, unknown digests
  'old.screenshot',
  'old.image',
  'old.obsText',
  'old.exchanges',
  'old.stdout',
  'old.stderr',
  'old.snap1a',
  'old.snap1b',
  // expired: all of its own
  'exp.deliverable',
  'exp.snap',
  'exp.stdout',
  // abandoned (open, idle 40 days): its earlier interval snapshot
  'ab.snap1',
  // unreferenced and old
  'unref.old',
];

beforeAll(async () => {
  nats = await startTestNats();
  log = await EpisodeLog.open(nats.nc);
  blobs = await BlobStore.open(nats.nc);
  const names = [
    ...['screenshot', 'image', 'obsText', 'exchanges', 'stdout', 'stderr', 'snap1a', 'snap1b'],
    ...['stageArtifact', 'snapStage', 'handoff', 'deliverable', 'future'],
  ];
  for (const n of names) await put(`old.${n}`);
  await put('old.snapLast', 50_000);
  await put('shared.deliverable');
  for (const n of ['deliverable', 'snap', 'stdout']) await put(`exp.${n}`);
  for (const n of ['snap1', 'snap2', 'stdout', 'screenshot']) await put(`recent.${n}`);
  for (const n of ['snap', 'stdout']) await put(`run.${n}`);
  for (const n of ['snap1', 'snap2']) await put(`ab.${n}`);
  await put('task.tar');
  await put('unref.old');
  await put('unref.touched');
  await put('late.old'); // referenced only by an event appended while gc runs (see below)
  await put('late.new');
  await put('unref.raced'); // touched while gc runs, after it listed the bucket

  // Ended 45 days ago: the analysis tier.
  await episode('old', t0 - 45 * DAY, [
    started('old'),
    { type: 'sandbox.provisioned', sandboxes: { sb0: 'c1', sb1: 'c2' } },
    {
      type: 'observation.recorded',
      round: 1,
      text: 'preview',
      textBlob: d['old.obsText']!,
      screenshot: d['old.screenshot']!,
      images: [
        { name: 'screen', mediaType: 'image/png', digest: d['old.screenshot']!, bytes: 1000 },
        { name: 'plot.png', mediaType: 'image/png', digest: d['old.image']!, bytes: 1000 },
      ],
    },
    {
      type: 'agent.decided',
      round: 1,
      raw: {},
      decision: { kind: 'act', actions: [] },
      latencyMs: 1,
      stateDigest: 'cd'.repeat(32),
      call: {
        provider: 'anthropic',
        model: 'm',
        usage: { input: 1, output: 1, cached: 0, cacheWrite: 0 },
        costUsd: null,
        latencyMs: 1,
        retries: 0,
        stopReason: null,
        promptVersion: 1,
        exchanges: d['old.exchanges']!,
      },
    },
    executed(1, d['old.stdout'], d['old.stderr']),
    snapshot(1, 'interval', d['old.snap1a']!, d['old.snap1b']!),
    {
      type: 'stage.checked',
      stage: 'model',
      round: 2,
      artifacts: { 'part.step': d['old.stageArtifact']! },
      verdicts: [],
      score: 1,
      passed: true,
      halt: false,
    },
    snapshot(2, 'stage', d['old.snapStage']!),
    {
      type: 'artifact.handed_off',
      round: 3,
      index: 0,
      from: { sandbox: 'sb0', path: 'a.step' },
      to: { sandbox: 'sb1', path: 'a.step' },
      digest: d['old.handoff']!,
      bytes: 1000,
      format: 'step',
      declared: 'step',
      producedAt: null,
      durationMs: 1,
    },
    // A field this build does not know, naming a blob: kept as `other`.
    {
      type: 'sandbox.lost',
      error: { code: 'X', message: 'x' },
      during: 'acting',
      attempt: 1,
      future: d['old.future'],
    } as EventDraft,
    snapshot(3, 'interval', d['old.snapLast']!),
    verified({ 'part.step': d['old.deliverable']!, 'report.md': null }),
    ended,
  ]);
  // Ended 100 days ago: expired. One deliverable is shared with the recent episode.
  await episode('expired', t0 - 100 * DAY, [
    started('expired'),
    executed(1, d['exp.stdout']),
    snapshot(1, 'interval', d['exp.snap']!),
    verified({ 'part.step': d['exp.deliverable']!, 'shared.step': d['shared.deliverable']! }),
    ended,
  ]);
  // Ended a day ago: live, everything stays.
  await episode('recent', t0 - DAY, [
    started('recent'),
    { type: 'observation.recorded', round: 1, text: 'x', screenshot: d['recent.screenshot']! },
    executed(1, d['recent.stdout']),
    snapshot(1, 'interval', d['recent.snap1']!),
    snapshot(2, 'interval', d['recent.snap2']!),
    verified({ 'shared.step': d['shared.deliverable']! }),
    ended,
  ]);
  // Still running (no episode.ended, last event 10 minutes ago).
  await episode('running', t0 - 10 * 60_000, [
    started('running'),
    executed(1, d['run.stdout']),
    snapshot(1, 'interval', d['run.snap']!),
  ]);
  // Open but idle for 40 days (its worker died): its last snapshot stays for a late resume.
  await episode('abandoned', t0 - 40 * DAY, [
    started('abandoned'),
    snapshot(1, 'interval', d['ab.snap1']!),
    snapshot(2, 'interval', d['ab.snap2']!),
  ]);
  const queue = await JobQueue.open(nats.nc);
  await queue.submit({
    v: 1,
    runId: 'run-q',
    episodeId: 'queued-1',
    taskId: 'bracket',
    agent: 'scripted',
    taskBlob: d['task.tar']!,
  });
  // Everything above is now older than the grace period; these two are not (or not any more).
  await sleep(GRACE_MS + 500);
  await put('unref.young');
  expect(await blobs.touch(d['unref.touched']!)).toBe(true);
  now = Date.now() + 1; // both are a few ms old, well within the grace period
});
afterAll(() => nats?.close());

/** Names of the blobs in the bucket. */
async function inBucket(): Promise<string[]> {
  const byDigest = new Map(Object.entries(d).map(([n, x]) => [x, n]));
  return (await blobs.list()).map((b) => byDigest.get(b.digest) ?? b.digest).sort();
}

/** The clock of these tests' collections: just after the old blobs passed the grace period. */
let now = 0;
const gc = (dryRun: boolean, target: EpisodeLog = log, at = () => now): Promise<GcReport> =>
  collectGarbage(target, blobs, { dryRun, policy: { graceMs: GRACE_MS }, now: at });

/** Deleted tallies by kind, for the names in `DOOMED` and `unreferenced` ones. */
function expectedDeleted(
  unreferenced: string[] = [],
): Partial<Record<BlobKind | 'unreferenced', { objects: number; bytes: number }>> {
  const kind: Record<string, BlobKind | 'unreferenced'> = {
    'old.screenshot': 'screenshot',
    'old.image': 'image',
    'old.obsText': 'observation-text',
    'old.exchanges': 'exchanges',
    'old.stdout': 'output',
    'old.stderr': 'output',
    'old.snap1a': 'snapshot-interval',
    'old.snap1b': 'snapshot-interval',
    'exp.deliverable': 'deliverable',
    'exp.snap': 'snapshot-last',
    'exp.stdout': 'output',
    'ab.snap1': 'snapshot-interval',
    'unref.old': 'unreferenced',
    ...Object.fromEntries(unreferenced.map((n) => [n, 'unreferenced'])),
  };
  const out: ReturnType<typeof expectedDeleted> = {};
  for (const n of [...DOOMED, ...unreferenced]) {
    const t = (out[kind[n]!] ??= { objects: 0, bytes: 0 });
    t.objects++;
    t.bytes += sizes.get(d[n]!)!;
  }
  return out;
}

describe('engiloop gc', () => {
  let all: string[];

  it('in a dry run reports exactly what the policy deletes and deletes nothing', async () => {
    all = await inBucket();
    expect(all).toHaveLength(Object.keys(d).length);
    const r = await gc(true);
    expect(r.dryRun).toBe(true);
    expect(r.episodes).toEqual({ live: 2, analysis: 2, expired: 1, open: 2 });
    expect(r.jobs).toBe(1);
    // late.* are not referenced yet, nor unref.raced touched (the next test does so while gc runs).
    expect(r.deleted).toEqual(expectedDeleted(['late.old', 'late.new', 'unref.raced']));
    expect(r.totals.deleted.objects).toBe(DOOMED.length + 3);
    expect(r.totals.kept.objects + r.totals.deleted.objects).toBe(all.length);
    expect(r.kept.task).toEqual({ objects: 1, bytes: 1000 });
    expect(r.kept.other).toEqual({ objects: 1, bytes: 1000 });
    // Unreferenced, yet spared by the grace period: one just written, one old but just touched.
    expect(r.grace).toEqual({ objects: 2, bytes: 2000 });
    expect(r.kept.unreferenced).toEqual({ objects: 2, bytes: 2000 });
    expect(await inBucket()).toEqual(all);
  });

  it('deletes exactly that set; what fork, verdicts and live episodes need survives intact', async () => {
    // While gc reads the logs, the running episode appends a reference to an old blob and a new
    // episode starts with another: the recheck must see both. And an old unreferenced blob is
    // touched (as a put of the same content would): the sweep's last look must spare it.
    let calls = 0;
    const racing = Object.create(log) as EpisodeLog;
    racing.listEpisodes = async (prefix?: string) => {
      if (++calls === 2) {
        const w = await log.resume('running');
        await w.append({ ...executed(2, d['late.old']), v: EVENT_VERSION, at: Date.now() } as EpisodeEvent);
        await episode('late', Date.now(), [started('late'), executed(1, d['late.new'])]);
        await blobs.touch(d['unref.raced']!, now);
      }
      return log.listEpisodes(prefix);
    };
    const r = await gc(false, racing);
    expect(calls).toBe(2);
    expect(r.failed).toEqual([]);
    expect(r.deleted).toEqual(expectedDeleted());
    const doomed = new Set(DOOMED);
    expect(await inBucket()).toEqual(all.filter((n) => !doomed.has(n)));
    for (const n of [
      ...[
        'old.deliverable',
        'old.stageArtifact',
        'old.handoff',
        'old.snapStage',
        'old.snapLast',
        'old.future',
      ],
      ...['shared.deliverable', 'recent.snap1', 'recent.screenshot', 'run.snap', 'ab.snap2', 'task.tar'],
      ...['late.old', 'late.new', 'unref.young', 'unref.touched', 'unref.raced'],
    ])
      expect((await blobs.get(d[n]!)).length, n).toBe(sizes.get(d[n]!));
  });

  it('a second run deletes nothing', async () => {
    const r = await gc(false);
    expect(r.totals.deleted).toEqual({ objects: 0, bytes: 0 });
    expect(r.missing).toBe(0); // what the policy keeps is all there
  });

  it('from the command line: --help, bad flags, and a dry run as JSON', async () => {
    const help = await cli(['gc', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--expire-days');
    expect(help.stdout).toContain('Exit codes');
    const bad = await cli(['gc', '--keep-days', '40', '--expire-days', '30'], { NATS_URL: nats.url });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--expire-days (30) must be ≥ --keep-days (40)');
    const before = await inBucket();
    // Grace 0: the young and the two touched unreferenced blobs are due; a dry run only reports them.
    const dry = await cli(['gc', '--dry-run', '--json', '--grace-minutes', '0'], { NATS_URL: nats.url });
    expect(dry.code, dry.stderr).toBe(0);
    const r = JSON.parse(dry.stdout) as GcReport & { bucket: { maxBytes: number; maxAgeMs: number } };
    expect(r.deleted).toEqual({ unreferenced: { objects: 3, bytes: 3000 } });
    expect(r.bucket).toMatchObject({ maxBytes: -1, maxAgeMs: 0 });
    expect(dry.stderr).toContain('gc: reading episodes');
    const text = await cli(['gc', '--dry-run'], { NATS_URL: nats.url });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^dry run, nothing deleted/);
    expect(text.stdout).toMatch(/total\s+\d+/);
    expect(await inBucket()).toEqual(before);
  });

  it('caps the bucket: puts past the cap fail, nothing stored is lost, delete still frees space', async () => {
    const capped = await BlobStore.open(nats.nc, 'gc-cap');
    const big = await capped.put(Buffer.alloc(600_000, 1));
    const { bytes } = await capped.limits();
    await capped.setMaxBytes(nats.jsm, bytes - 100_000); // below what is stored
    expect(await capped.limits()).toMatchObject({ maxBytes: bytes - 100_000, maxAgeMs: 0 });
    // The cap is in the stream config: opening the bucket again keeps it.
    const reopened = await BlobStore.open(nats.nc, 'gc-cap', { replicas: 1 });
    expect((await reopened.limits()).maxBytes).toBe(bytes - 100_000);
    await expect(capped.put(Buffer.alloc(10_000, 2))).rejects.toThrow(/maximum bytes exceeded/);
    expect((await capped.get(big)).length).toBe(600_000);
    expect(await capped.delete(big, nats.jsm)).toBe(600_000);
    expect((await capped.limits()).bytes).toBeLessThan(1_000);
    expect(await capped.has(big)).toBe(false);
    const small = await capped.put(Buffer.alloc(10_000, 2)); // room again
    expect(await capped.has(small)).toBe(true);
    await capped.setMaxBytes(nats.jsm, -1);
    expect((await capped.limits()).maxBytes).toBe(-1);
  });

  it('a delete racing touches leaves the object whole or absent, never pointing at purged chunks', async () => {
    const store = await BlobStore.open(nats.nc, 'gc-race');
    const outcomes = { whole: 0, absent: 0 };
    for (let i = 0; i < 40; i++) {
      const bytes = Buffer.alloc(300_000, `race ${i}`); // 3 chunks
      const x = await store.put(bytes);
      await Promise.all([
        store.delete(x, nats.jsm),
        ...[0, 1, 2].map(async (k) => {
          await sleep(k);
          await store.touch(x).catch(() => false); // may find it gone midway
        }),
      ]);
      const info = await store.os.info(x);
      if (!info || info.deleted) {
        outcomes.absent++;
        continue;
      }
      const chunks = await nats.jsm.streams.info('OBJ_gc-race', {
        subjects_filter: `$O.gc-race.C.${info.nuid}`,
      });
      expect(
        Object.values(chunks.state.subjects ?? {}).reduce((a, n) => a + n, 0),
        `round ${i}`,
      ).toBe(info.chunks);
      expect((await store.get(x)).equals(bytes)).toBe(true);
      outcomes.whole++;
    }
    expect(outcomes.absent + outcomes.whole).toBe(40);
    expect(outcomes.absent).toBeGreaterThan(0);
  });

  it('stops the sweep when its signal is aborted, reporting what it deleted', async () => {
    for (let i = 0; i < 5; i++) await put(`unref.batch${i}`);
    const before = await inBucket();
    const ac = new AbortController();
    const r = await collectGarbage(log, blobs, {
      policy: { graceMs: 0 }, // every unreferenced blob is due: the five above and three more
      concurrency: 1,
      onProgress: (p) => (p.phase === 'sweep' ? ac.abort() : undefined),
      signal: ac.signal,
    });
    expect(r.interrupted).toBe(true);
    expect(r.totals.deleted).toEqual({ objects: 1, bytes: 1000 });
    expect((await inBucket()).length).toBe(before.length - 1);
  });

  it('an episode log it cannot read stops it before anything is deleted', async () => {
    await nats.js.publish('engiloop.ep.broken', new Uint8Array([0xc1]), { msgID: 'broken:1' });
    const before = await inBucket();
    // A thousand days on, everything would go.
    await expect(gc(false, log, () => Date.now() + 1000 * DAY)).rejects.toThrow(/engiloop\.ep\.broken/);
    const everything = ['--keep-days', '0', '--expire-days', '0', '--grace-minutes', '0'];
    const run = await cli(['gc', ...everything], { NATS_URL: nats.url });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('nothing was deleted');
    expect(await inBucket()).toEqual(before);
  });
});
