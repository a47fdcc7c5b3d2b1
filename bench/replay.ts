/**
 * Re-execute replay time against the original run time.
 *
 * Per task: an episode is run normally with the scripted agent (the reference solution) against a
 * real nats-server, Docker and the real verifiers, timed wall-clock around `runEpisode`; then
 * `replayExecute` plays its recorded agent outputs back in a fresh sandbox and compares every
 * observation, timed wall-clock around the call (the replay's own episode, verification included,
 * plus reading its log back and comparing). Repeated `repeat` times; medians are reported.
 *
 * Run: `node --import tsx bench/replay.ts [repeat] [task dir…]` (defaults 5; openscad-plate,
 * verilog-counter, slow-openscad-plate).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ScriptedAgent } from '../actors/agents/index.js';
import { runEpisode, episodeDeps, type EpisodeDeps } from '../actors/episode/index.js';
import { replayExecute } from '../actors/replay/index.js';
import { newRunId } from '../actors/run/index.js';
import { DockerSandboxProvider } from '../actors/sandbox/index.js';
import { BlobStore, connectNats, EpisodeLog, startNatsServer } from '../streams/index.js';
import { loadTask } from '../tasks/index.js';
import { median } from './resume.js';

const ROOT = join(import.meta.dirname, '..');

/** The default tasks: two starter tasks and a multi-round fixture. */
export const REPLAY_TASKS = [
  join(ROOT, 'tasks/starter/openscad-plate'),
  join(ROOT, 'tasks/starter/verilog-counter'),
  join(ROOT, 'test/fixtures/tasks/slow-openscad-plate'),
];

/** One task's medians. */
export interface ReplayRow {
  task: string;
  rounds: number;
  events: number;
  originalMs: number;
  replayMs: number;
  /** Replays that diverged from their original, of `repeat`. */
  diverged: number;
  /** Originals that did not pass (the reference solution should). */
  failed: number;
  repeat: number;
}

/** Runs each task `repeat` times, each followed by its re-execute replay. */
export async function benchReplay(
  o: { tasks?: string[]; repeat?: number; progress?: (line: string) => void } = {},
): Promise<ReplayRow[]> {
  const repeat = o.repeat ?? 5;
  const say = o.progress ?? ((l: string) => console.error(l));
  await using server = await startNatsServer();
  const nc = await connectNats(server.url);
  const dir = await mkdtemp(join(tmpdir(), 'engiloop-bench-replay-'));
  const provider = new DockerSandboxProvider();
  const runId = newRunId();
  const rows: ReplayRow[] = [];
  try {
    const log = await EpisodeLog.open(nc);
    const blobs = await BlobStore.open(nc);
    const deps: EpisodeDeps = episodeDeps({ log, blobs, provider });
    let k = 0;
    for (const taskDir of o.tasks ?? REPLAY_TASKS) {
      const lt = await loadTask(taskDir);
      const orig: number[] = [];
      const repl: number[] = [];
      let diverged = 0;
      let failed = 0;
      let rounds = 0;
      let events = 0;
      for (let i = 0; i < repeat; i++) {
        const episodeId = `${runId}-${lt.task.id}-${++k}`;
        const t0 = performance.now();
        const r = await runEpisode(lt, deps, {
          episodeId,
          runId,
          agent: new ScriptedAgent('scripted', lt.task.reference),
          artifactsDir: join(dir, episodeId),
        });
        orig.push(performance.now() - t0);
        if (!r.passed) failed++;
        rounds = r.rounds;
        const recorded = await log.read(episodeId);
        events = recorded.length;
        const t1 = performance.now();
        const report = await replayExecute(recorded, lt, deps, {
          read: (id) => log.read(id),
          episodeId: `${episodeId}-replay`,
          runId,
          artifactsDir: join(dir, `${episodeId}-replay`),
        });
        repl.push(performance.now() - t1);
        if (report.verdict !== 'identical') diverged++;
        say(
          `replay: ${lt.task.id} ${i + 1}/${repeat}: original ${Math.round(orig.at(-1)!)} ms (${r.status}), replay ${Math.round(repl.at(-1)!)} ms (${report.verdict})`,
        );
      }
      rows.push({
        task: lt.task.id,
        rounds,
        events,
        originalMs: median(orig),
        replayMs: median(repl),
        diverged,
        failed,
        repeat,
      });
    }
  } finally {
    await nc.close();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

/** The table: original and replay side by side, and replay / original. */
export function formatReplay(rows: readonly ReplayRow[]): string {
  const head = ['task', 'rounds', 'events', 'original', 'replay --execute', 'replay / orig', 'diverged'];
  const ms = (x: number) => `${Math.round(x).toLocaleString('en-US')} ms`;
  const body = rows.map((r) => [
    r.task,
    String(r.rounds),
    String(r.events),
    ms(r.originalMs),
    ms(r.replayMs),
    `${(r.replayMs / r.originalMs).toFixed(2)}x`,
    `${r.diverged}/${r.repeat}${r.failed ? ` (${r.failed} original(s) failed)` : ''}`,
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (x: string[]) => x.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ');
  return [`median of ${rows[0]?.repeat ?? 0} runs per task, wall-clock`, line(head), ...body.map(line)].join(
    '\n',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [repeat, ...tasks] = process.argv.slice(2);
  const rows = await benchReplay({
    repeat: repeat ? Number(repeat) : 5,
    ...(tasks.length ? { tasks } : {}),
  });
  console.log(formatReplay(rows));
}
