/**
 * Time from a worker's death to the episode resuming elsewhere.
 *
 * Per trial: a fresh run of `episodes` long CLI episodes (a task generated on the fly: `rounds`
 * rounds of `sleep 0.1; echo $i >> log.txt; wc -l < log.txt`) is queued; worker A (a real
 * `engiloop worker` process) takes them all; worker B starts and idles; once every episode has
 * reached round `killRound`, A is killed with SIGKILL and B resumes them after the ack wait.
 *
 * Measured per episode, from the bench's clock at the kill to the `episode.resumed` event's `at`:
 * total; of which `restoreMs` (fresh containers, snapshot unpacked, recorded actions re-executed),
 * and the rest (the job's redelivery after the ack wait, B reading the log and unpacking the task).
 * Done for `snapshot_every` 0 (every recorded action re-run) and 10 (latest snapshot, then at most
 * 10 rounds of actions). Snapshot take time and size come from the `workspace.snapshotted` events.
 *
 * Round 1 also writes `workspaceKiB` of random bytes, so a snapshot has something to carry.
 *
 * Run: `node --import tsx bench/resume.ts [trials] [episodes] [rounds] [killRound]` (defaults 3 2 40 25).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { newRunId, planEpisodes } from '../actors/run/index.js';
import { DockerSandboxProvider } from '../actors/sandbox/index.js';
import { packTask } from '../actors/worker/index.js';
import {
  BlobStore,
  connectNats,
  EpisodeLog,
  JobQueue,
  RunIndex,
  startNatsServer,
  type EpisodeEvent,
} from '../streams/index.js';
import { loadTask, type LoadedTask } from '../tasks/index.js';

const ROOT = join(import.meta.dirname, '..');
const ACK_WAIT_S = 2;

/** Sizes of {@link benchResume}. */
export interface ResumeOptions {
  /** Trials per `snapshot_every` value. Default 3. */
  trials?: number;
  /** Episodes per trial (all on worker A when it dies). Default 2. */
  episodes?: number;
  /** Rounds of the generated task. Default 40. */
  rounds?: number;
  /** Round every episode has reached when A is killed. Default 25. */
  killRound?: number;
  /** Random bytes written to the workspace in round 1 (what a snapshot carries), in KiB. Default 1024. */
  workspaceKiB?: number;
  /** Progress lines (stderr by default). */
  progress?: (line: string) => void;
}

/** One resumed episode. */
export interface ResumeSample {
  snapshotEvery: number;
  /** Round of the last event before the kill. */
  killedAtRound: number;
  totalMs: number;
  restoreMs: number;
  /** totalMs − restoreMs: redelivery after the ack wait, reading the log, unpacking the task. */
  pickupMs: number;
  replayed: number;
  snapshotRound: number | null;
  divergences: number;
  status: string;
}

/** Results of {@link benchResume}: one sample per resumed episode, and every snapshot taken. */
export interface ResumeResult {
  samples: ResumeSample[];
  snapshots: { snapshotEvery: number; durationMs: number; bytes: number }[];
  opts: Required<Omit<ResumeOptions, 'progress'>>;
}

/** Writes the generated task folder for `snapshotEvery` and loads it. */
async function makeTask(
  dir: string,
  rounds: number,
  snapshotEvery: number,
  workspaceKiB: number,
): Promise<LoadedTask> {
  const steps = [
    // Incompressible bytes, so the snapshot (and its restore) carries a workspace of some size.
    `  - { type: shell, command: "echo ready > out.txt; echo 0 > log.txt; head -c ${workspaceKiB * 1024} /dev/urandom > data.bin" }`,
    ...Array.from(
      { length: rounds - 1 },
      (_, i) => `  - { type: shell, command: "sleep 0.1; echo ${i + 2} >> log.txt; wc -l < log.txt" }`,
    ),
  ];
  const yaml = `id: bench-resume-s${snapshotEvery}
title: Long CLI episode for the resume bench
domain: cad
type: single-software
interface: cli
objective: Append one line per round to log.txt; out.txt is the deliverable.
limits: { max_rounds: ${rounds + 5}, snapshot_every: ${snapshotEvery} }
environment:
  sandboxes:
    main:
      image: engiloop/cli:latest
deliverables:
  - { path: out.txt, format: txt }
criteria:
  - { id: present, verifier: file.format, deliverable: out.txt }
reference:
${steps.join('\n')}
`;
  const taskDir = join(dir, `bench-resume-s${snapshotEvery}`);
  await mkdir(taskDir, { recursive: true });
  await writeFile(join(taskDir, 'task.yaml'), yaml);
  return loadTask(taskDir);
}

function worker(env: Record<string, string>, logFile: string, concurrency: number): ChildProcess {
  const fd = openSync(logFile, 'a');
  const p = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'actors/cli/main.ts'),
      'worker',
      ...['--concurrency', String(concurrency), '--ack-wait', String(ACK_WAIT_S)],
      ...['--max-deliver', '20', '--idle-exit', '120'],
    ],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  return p;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const exited = (p: ChildProcess) =>
  new Promise<void>((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once('exit', () => r())));

/** Polls `cond` every `everyMs` until it holds; throws after `timeoutMs` naming `what`. */
async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 120_000, everyMs = 50) {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`resume bench: timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

const roundOf = (e: EpisodeEvent | null): number => (e && 'round' in e ? e.round : 0);

/** Runs every trial (see the module doc) and returns the raw samples. */
export async function benchResume(o: ResumeOptions = {}): Promise<ResumeResult> {
  const opts = { trials: 3, episodes: 2, rounds: 40, killRound: 25, workspaceKiB: 1024, ...o };
  const say = o.progress ?? ((l: string) => console.error(l));
  await using server = await startNatsServer();
  const nc = await connectNats(server.url);
  const home = await mkdtemp(join(tmpdir(), 'engiloop-bench-resume-'));
  const provider = new DockerSandboxProvider();
  const samples: ResumeSample[] = [];
  const snapshots: ResumeResult['snapshots'] = [];
  const live: ChildProcess[] = [];
  try {
    const log = await EpisodeLog.open(nc);
    const blobs = await BlobStore.open(nc);
    const runs = await RunIndex.open(nc);
    const queue = await JobQueue.open(nc, { ackWaitMs: ACK_WAIT_S * 1000, maxDeliver: 20 });
    const env = { NATS_URL: server.url, ENGILOOP_HOME: home };
    for (const every of [0, 10]) {
      const lt = await makeTask(join(home, 'tasks'), opts.rounds, every, opts.workspaceKiB);
      const taskBlob = await blobs.put(await packTask(lt.dir));
      for (let trial = 1; trial <= opts.trials; trial++) {
        const runId = newRunId();
        const ids = planEpisodes(runId, [lt], opts.episodes).map((p) => p.episodeId);
        await runs.start(runId, { suite: lt.dir, agent: 'scripted', episodes: ids, startedAt: Date.now() });
        const logA = join(home, `${runId}-A.log`);
        const logB = join(home, `${runId}-B.log`);
        const a = worker(env, logA, opts.episodes);
        live.push(a);
        for (const episodeId of ids)
          await queue.submit({ v: 1, runId, episodeId, taskId: lt.task.id, agent: 'scripted', taskBlob });
        await until('worker A to start every episode', async () =>
          (await Promise.all(ids.map((id) => log.last(id)))).every((e) => e !== null),
        );
        // B is up and polling the queue (it printed its banner) before A dies.
        const b = worker(env, logB, opts.episodes);
        live.push(b);
        await until('worker B to be ready', async () =>
          /^worker .* concurrency \d+/m.test(await readFile(logB, 'utf8').catch(() => '')),
        );
        const atReady = (await Promise.all(ids.map((id) => log.last(id)))).map(roundOf);
        if (atReady.some((r) => r >= opts.killRound))
          say(`resume: worker B was ready only at round ${atReady.join('/')}; the kill comes late`);
        let lastBefore: (EpisodeEvent | null)[] = [];
        await until(`every episode at round ${opts.killRound}`, async () => {
          lastBefore = await Promise.all(ids.map((id) => log.last(id)));
          return lastBefore.every((e) => roundOf(e) >= opts.killRound);
        });
        a.kill('SIGKILL');
        const tKill = Date.now();
        await exited(a);
        say(
          `resume: snapshot_every ${every}, trial ${trial}: killed worker A at round ${lastBefore.map(roundOf).join('/')}`,
        );
        await until(
          'the episodes to end on worker B',
          async () =>
            (await Promise.all(ids.map((id) => log.last(id)))).every((e) => e?.type === 'episode.ended'),
          300_000,
          250,
        );
        b.kill('SIGTERM');
        await exited(b);
        for (const [i, id] of ids.entries()) {
          const events = await log.read(id);
          const resumed = events.find((e) => e.type === 'episode.resumed');
          const ended = events.at(-1);
          if (resumed?.type !== 'episode.resumed') throw new Error(`${id}: no episode.resumed event`);
          const restoreMs = resumed.restoreMs ?? 0;
          samples.push({
            snapshotEvery: every,
            killedAtRound: roundOf(lastBefore[i] ?? null),
            totalMs: resumed.at - tKill,
            restoreMs,
            pickupMs: resumed.at - tKill - restoreMs,
            replayed: resumed.replayed,
            snapshotRound: resumed.snapshotRound ?? null,
            divergences: resumed.divergences.length,
            status: ended?.type === 'episode.ended' ? `${ended.status} ${ended.score}` : 'not ended',
          });
          for (const e of events)
            if (e.type === 'workspace.snapshotted')
              for (const sb of Object.values(e.sandboxes))
                snapshots.push({ snapshotEvery: every, durationMs: e.durationMs, bytes: sb.bytes });
        }
        // A's containers were orphaned by the kill.
        await provider.removeOrphans({ labels: { 'io.engiloop.run': runId } }).catch(() => 0);
      }
    }
  } finally {
    for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    await Promise.all(live.map(exited));
    await nc.close();
    await rm(home, { recursive: true, force: true });
  }
  return { samples, snapshots, opts };
}

/** Median of `xs` (NaN when empty). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The table: snapshot_every 0 and 10 side by side, medians, and the ratio. */
export function formatResume(r: ResumeResult): string {
  const of = (every: number) => r.samples.filter((s) => s.snapshotEvery === every);
  const [s0, s10] = [of(0), of(10)];
  const snaps = r.snapshots.filter((s) => s.snapshotEvery === 10);
  const ms = (x: number) => (Number.isFinite(x) ? `${Math.round(x).toLocaleString('en-US')} ms` : '—');
  const num = (x: number) => (Number.isFinite(x) ? String(x) : '—');
  const ratio = (x: number, y: number) => (y > 0 && Number.isFinite(x / y) ? `${(x / y).toFixed(2)}x` : '—');
  const rows: [string, string, string, string][] = [];
  const metric = (
    name: string,
    f: (s: ResumeSample) => number,
    show: (x: number) => string,
    withRatio = true,
  ) => {
    const [a, b] = [median(s0.map(f)), median(s10.map(f))];
    rows.push([name, show(a), show(b), withRatio ? ratio(a, b) : '']);
  };
  metric('kill → episode.resumed (total)', (s) => s.totalMs, ms);
  metric('  redelivery + pickup (total − restoreMs)', (s) => s.pickupMs, ms);
  metric('  restoreMs (provision + snapshot + re-exec)', (s) => s.restoreMs, ms);
  metric('actions re-executed', (s) => s.replayed, num);
  metric('killed at round', (s) => s.killedAtRound, num, false);
  metric('restored from snapshot of round', (s) => s.snapshotRound ?? NaN, num, false);
  rows.push([
    'snapshot take time (median, all snapshots)',
    '—',
    ms(median(snaps.map((s) => s.durationMs))),
    '',
  ]);
  rows.push([
    'snapshot size (median, gzipped tar)',
    '—',
    snaps.length ? `${(median(snaps.map((s) => s.bytes)) / 1024).toFixed(1)} KiB` : '—',
    '',
  ]);
  const bad = r.samples.filter((s) => s.divergences > 0 || !s.status.startsWith('done 1'));
  const head: [string, string, string, string] = ['', 'snapshot_every 0', 'snapshot_every 10', '0 / 10'];
  const w = [Math.max(...[head, ...rows].map((x) => x[0].length)), 17, 18, 8];
  const line = (x: [string, string, string, string]) =>
    `${x[0].padEnd(w[0]!)}  ${x[1].padStart(w[1]!)}  ${x[2].padStart(w[2]!)}  ${x[3].padStart(w[3]!)}`.trimEnd();
  return [
    `kill -9 of a worker at round ~${r.opts.killRound} of ${r.opts.rounds}; ack wait ${ACK_WAIT_S} s; ${r.opts.workspaceKiB} KiB workspace; median of ${s0.length} / ${s10.length} episodes (${r.opts.trials} trials × ${r.opts.episodes})`,
    line(head),
    ...rows.map(line),
    bad.length
      ? `WARNING: ${bad.length} episode(s) diverged on resume or did not end done/1: ${bad.map((s) => s.status).join(', ')}`
      : `every resumed episode ended done with score 1 and no divergence (${r.snapshots.length} snapshots taken)`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [trials, episodes, rounds, killRound] = process.argv.slice(2).map(Number);
  const r = await benchResume({
    ...(trials ? { trials } : {}),
    ...(episodes ? { episodes } : {}),
    ...(rounds ? { rounds } : {}),
    ...(killRound ? { killRound } : {}),
  });
  console.log(formatResume(r));
}
