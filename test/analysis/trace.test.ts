/**
 * Verdict traces. The extractor on hand-built hostile snapshots (path escapes, links, oversized and
 * non-tar input): nothing is written outside its folder and each refusal names its reason. Then a
 * real episode (real nats-server, Docker and verifiers) with a snapshot every round, whose agent
 * makes the openscad-plate right and then breaks it: the trace finds the round it was last right
 * and the round it first went wrong, per criterion, with the measured values changing.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../actors/agents/index.js';
import { runEpisode } from '../../actors/episode/index.js';
import { traceEpisode } from '../../actors/analysis/trace.js';
import { traceEveryRound } from '../../actors/analysis/trace-rounds.js';
import { extractEntries, archiveName } from '../../actors/analysis/trace-extract.js';
import { traceReport } from '../../actors/analysis/trace-report.js';
import { rightWrong } from '../../actors/analysis/trace-series.js';
import { decodeEvent } from '../../streams/index.js';
import type { Action, LoadedTask } from '../../tasks/index.js';
import { episodeKit, starter, type EpisodeKit } from '../helpers/episode.js';

type Entry = {
  name: string;
  type?: 'file' | 'symlink' | 'link' | 'directory';
  body?: string;
  linkname?: string;
};

async function tgz(entries: Entry[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c: unknown) => {
    chunks.push(c as Buffer);
  });
  const done = new Promise<void>((r) => p.on('end', () => r()));
  for (const e of entries) {
    const h = {
      name: e.name,
      type: e.type ?? 'file',
      mode: 0o644,
      ...(e.linkname ? { linkname: e.linkname } : {}),
    };
    if (h.type === 'file') p.entry(h, e.body ?? '');
    else p.entry(h, Buffer.alloc(0));
  }
  p.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

async function files(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}

describe('taking deliverables out of a hostile snapshot', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'engiloop-trace-test-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('writes only regular files under their own names; escapes, links and oversized files are refused', async () => {
    const archive = await tgz([
      { name: './workspace/', type: 'directory' },
      { name: '../../evil.txt', body: 'escaped' },
      { name: '/etc/abs.txt', body: 'absolute' },
      { name: './workspace/../workspace/dotdot.txt', body: 'via ..' },
      { name: './workspace/part.stl', type: 'symlink', linkname: '/etc/passwd' },
      { name: './workspace/big.bin', body: 'x'.repeat(2048) },
      { name: './workspace/ok.txt', body: 'solid' },
      { name: './workspace/lnk', type: 'symlink', linkname: '/etc' },
      { name: './workspace/lnk/c.txt', body: 'under a link' },
      { name: './workspace/hard.txt', type: 'link', linkname: './workspace/ok.txt' },
      { name: './tmp/ok.txt', body: 'other root' },
    ]);
    const dest = join(root, 'out');
    const names = ['dotdot.txt', 'part.stl', 'big.bin', 'ok.txt', 'lnk/c.txt', 'hard.txt', 'nothere.txt'];
    const got = await extractEntries(
      archive,
      names.map((n) => ({ entry: archiveName('/workspace', n), dest: join(dest, n) })),
      1024,
      2 ** 20,
    );
    const at = (n: string) => got.get(archiveName('/workspace', n));
    expect(at('ok.txt')).toMatchObject({ kind: 'file', bytes: 5 });
    expect(at('hard.txt')).toMatchObject({ kind: 'file', bytes: 5 });
    expect(at('nothere.txt')).toEqual({ kind: 'missing' });
    expect(at('dotdot.txt')).toMatchObject({
      kind: 'refused',
      reason: expect.stringMatching(/outside the workdir/),
    });
    expect(at('part.stl')).toMatchObject({
      reason: 'part.stl is a symbolic link (to /etc/passwd), not a regular file',
    });
    expect(at('big.bin')).toMatchObject({
      reason: expect.stringMatching(/2 KiB \(2048 bytes\), over the 1 KiB cap/),
    });
    expect(at('lnk/c.txt')).toMatchObject({
      reason: expect.stringMatching(/^lnk is a symbolic link \(to \/etc\)/),
    });
    // Nothing but the two regular files, each at its own host path; nothing escaped the folder.
    expect(await files(root)).toEqual(['out/hard.txt', 'out/ok.txt']);
    expect(await readFile(join(dest, 'hard.txt'), 'utf8')).toBe('solid');
  });

  it('an archive that is not a gzipped tar, or unpacks past the cap, refuses what it did not reach', async () => {
    const dest = join(root, 'bad');
    const want = [{ entry: 'workspace/a.txt', dest: join(dest, 'a.txt') }];
    const notTar = await extractEntries(Buffer.from('not a tar at all'), want, 1024, 2 ** 20);
    expect(notTar.get('workspace/a.txt')).toMatchObject({ kind: 'refused', reason: /could not be read/ });
    const bomb = await tgz([
      { name: './workspace/pad.bin', body: '0'.repeat(100_000) },
      { name: './workspace/a.txt', body: 'late' },
    ]);
    const capped = await extractEntries(bomb, want, 1024, 50_000);
    expect(capped.get('workspace/a.txt')).toMatchObject({ reason: /unpacks to more than/ });
    expect(await files(root)).not.toContain('bad/a.txt');
  });

  it('rightWrong: last passing point, and the first failing one after it', () => {
    const s = (...p: boolean[]) => p.map((passed, i) => ({ round: i + 1, passed }));
    expect(rightWrong(s(false, true, true, false, false))).toEqual({ lastRight: 3, firstWrong: 4 });
    expect(rightWrong(s(false, true, false, true))).toEqual({ lastRight: 4, firstWrong: null });
    expect(rightWrong(s(false, false))).toEqual({ lastRight: null, firstWrong: 1 });
    expect(rightWrong([])).toEqual({ lastRight: null, firstWrong: null });
  });
});

describe('a trace over a real episode that is right, then broken', () => {
  let kit: EpisodeKit;
  beforeAll(async () => {
    kit = await episodeKit();
  });
  afterAll(() => kit?.close());

  /** Rounds 1–2: the right part (the reference); round 3 makes it 8 mm thick; round 4 looks. */
  const breaker = (plate: LoadedTask): Agent => {
    const ref = plate.task.reference.map((s) => [s].flat() as Action[]);
    const shell = (command: string): Action => ({ type: 'shell', command });
    const rounds: Action[][] = [
      ...ref,
      [
        shell(
          "sed -i 's/cube(\\[80, 50, 6\\])/cube([80, 50, 8])/' part.scad && openscad -o part.stl part.scad",
        ),
      ],
      [shell('ls -l')],
    ];
    return {
      name: 'breaker',
      decide: async ({ round }) => (round <= rounds.length ? { actions: rounds[round - 1] } : { done: true }),
    };
  };
  const read = async (id: string) => {
    const raw = await kit.log.readRaw(id);
    return {
      events: raw.map((x) => decodeEvent(x.data, { subject: x.subject, seq: x.seq })),
      seqs: raw.map((x) => x.seq),
    };
  };

  it('finds round 2 as last right and round 3 as first wrong, with the measured values', async () => {
    const plate = await starter('openscad-plate');
    const agent = breaker(plate);
    const episodeId = `${kit.runId}-trace`;
    const r = await runEpisode(plate, kit.deps, {
      episodeId,
      runId: kit.runId,
      agent,
      artifactsDir: join(kit.dir, episodeId),
      snapshotEvery: 1,
    });
    expect(r.status, JSON.stringify(r.error)).toBe('done');
    expect(r.passed).toBe(false);
    const raw = await kit.log.readRaw(episodeId);
    const { events, seqs } = await read(episodeId);
    const progress: string[] = [];
    const t = await traceEpisode(events, seqs, plate, kit.deps, {
      onProgress: (d, n) => progress.push(`${d}/${n}`),
    });
    const snaps = t.points.filter((p) => p.source === 'snapshot');
    expect(snaps.map((p) => p.round)).toEqual([1, 2, 3, 4]);
    expect(t.points.at(-1)).toMatchObject({ source: 'final', round: 5, passed: false });
    expect(progress.at(-1)).toBe('5/5');
    for (const p of t.points) expect(raw.find((x) => x.seq === p.seq)).toBeDefined();
    expect(snaps.map((p) => p.passed)).toEqual([false, true, false, false]);
    expect(t).toMatchObject({ lastRight: 2, firstWrong: 3 });
    const c = (id: string) => t.criteria.find((x) => x.criterion === id)!;
    expect(c('bbox')).toMatchObject({ lastRight: 2, firstWrong: 3 });
    expect(c('volume')).toMatchObject({ lastRight: 2, firstWrong: 3 });
    // The format stays right once the file exists; before it, it was missing. Round 5 said DONE.
    expect(c('format')).toMatchObject({ lastRight: 5, firstWrong: null });
    expect(c('format').series[0]).toMatchObject({ round: 1, passed: false });
    const bbox = c('bbox').series.map((s) => s.measured);
    expect(bbox[1]).toEqual([80, 50, 6].map((x) => expect.closeTo(x, 3)));
    expect(bbox[2]).toEqual([80, 50, 8].map((x) => expect.closeTo(x, 3)));
    const vol = c('volume').series.map((s) => s.measured as number);
    expect(vol[2]! / vol[1]!).toBeCloseTo(8 / 6, 1);
    // The last snapshot and the recorded final verification agree.
    expect(snaps[3]!.verdicts.map((v) => [v.criterion, v.passed])).toEqual(
      t.points[4]!.verdicts.map((v) => [v.criterion, v.passed]),
    );
    expect(t.costMs.perPoint).toHaveLength(5);
    const text = traceReport(t);
    expect(text).toMatch(
      /^bbox +last right after round 2, first wrong after round 3 \(it broke in round 3\)$/m,
    );
    expect(text).toMatch(/✓ 80×50×6/);
    expect(text).toMatch(/✗ 80×50×8/);
    expect(await kit.leftovers()).toEqual([]);
  });

  it('--every-round: an episode without snapshots is re-executed with one per round and traced', async () => {
    const plate = await starter('openscad-plate');
    const r = await kit.run(
      { ...plate, task: { ...plate.task, limits: { ...plate.task.limits, snapshot_every: 0 } } },
      breaker(plate),
    );
    const orig = await read(r.episodeId);
    expect(orig.events.some((e) => e.type === 'workspace.snapshotted')).toBe(false);
    const sparse = await traceEpisode(orig.events, orig.seqs, plate, kit.deps);
    expect(sparse.points.map((p) => p.source)).toEqual(['final']);
    const id = `${r.episodeId}-every`;
    const t = await traceEveryRound(orig.events, plate, kit.deps, {
      episodeId: id,
      runId: kit.runId,
      artifactsDir: join(kit.dir, id),
      read,
    });
    expect(t.episodeId).toBe(r.episodeId);
    expect(t.reexecuted).toMatchObject({ episodeId: id, divergence: null });
    expect(t.points.map((p) => [p.round, p.passed])).toEqual([
      [1, false],
      [2, true],
      [3, false],
      [4, false],
      [5, false],
    ]);
    expect(t).toMatchObject({ lastRight: 2, firstWrong: 3 });
    expect(traceReport(t)).toMatch(/from a re-execution .*identical to the original/);
    expect(await kit.leftovers()).toEqual([]);
  });
});
