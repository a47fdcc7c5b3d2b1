/**
 * Fork time against the original's time to reach the same round: a 20-round openscad-plate episode
 * (each round re-renders the model), forked at rounds 5, 10 and 19, with snapshots every 5 rounds
 * (the fork restores the latest and re-executes the rounds after it) and with none (it re-executes
 * every round). The fork's agent says DONE at once, so its time to reach the round is the copy of
 * the history plus the restore: from the call to `episode.resumed`.
 *
 *   npx tsx bench/fork.ts [rounds]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../actors/agents/index.js';
import { episodeDeps, runEpisode } from '../actors/episode/index.js';
import { forkEpisode, newRunId } from '../actors/run/index.js';
import { BlobStore, connectNats, EpisodeLog, startNatsServer, type EpisodeEvent } from '../streams/index.js';
import { loadTask, type Action } from '../tasks/index.js';

const rounds = Number(process.argv[2] ?? 20);

async function main(): Promise<void> {
  const server = await startNatsServer();
  const nc = await connectNats(server.url, { name: 'bench-fork' });
  const dir = await mkdtemp(join(tmpdir(), 'engiloop-bench-fork-'));
  try {
    const log = await EpisodeLog.open(nc);
    const blobs = await BlobStore.open(nc);
    const deps = episodeDeps({ log, blobs });
    const base = await loadTask(join(import.meta.dirname, '../tasks/starter/openscad-plate'));
    const lt = { ...base, task: { ...base.task, limits: { ...base.task.limits, max_rounds: rounds + 2 } } };
    const ref = base.task.reference.map((s) => [s].flat() as Action[]);
    const plan: Action[][] = [
      ...ref,
      ...Array.from({ length: rounds - ref.length }, () => [
        { type: 'shell', command: 'openscad -o part.stl part.scad 2>&1 | tail -1' } as Action,
      ]),
    ];
    const agent: Agent = {
      name: 'bench',
      decide: async ({ round }) => (round <= plan.length ? { actions: plan[round - 1] } : { done: true }),
    };
    const done: Agent = { name: 'done', decide: async () => ({ done: true }) };
    const runId = newRunId();
    console.log(
      `fork of a ${rounds}-round openscad-plate episode (each round re-renders the model); the fork's agent says DONE at once\n`,
    );
    console.log(
      'snapshots      fork at  original reached it (ms)  fork reached it (ms)  re-executed  ratio fork/original',
    );
    for (const every of [5, 0]) {
      const id = `${runId}-s${every}`;
      const r = await runEpisode(lt, deps, {
        episodeId: id,
        runId,
        agent,
        artifactsDir: join(dir, id),
        snapshotEvery: every,
      });
      if (!r.passed) throw new Error(`original ${id}: ${r.status} ${r.score}`);
      const events = await log.read(id);
      const t0 = events[0]!.at;
      for (const at of [5, 10, rounds - 1]) {
        const reached = events.filter((e) => 'round' in e && e.round === at).at(-1)!.at - t0;
        const forkId = `${id}-f${at}`;
        const start = Date.now();
        await forkEpisode(lt, log, deps, {
          events,
          at,
          episodeId: forkId,
          runId: `${runId}f`,
          agentSpec: 'done',
          agent: done,
          artifactsDir: join(dir, forkId),
        });
        const got = await log.read(forkId);
        const resumed = got.find(
          (e): e is Extract<EpisodeEvent, { type: 'episode.resumed' }> => e.type === 'episode.resumed',
        )!;
        const forkMs = resumed.at - start;
        console.log(
          `${(every ? `every ${every}` : 'none').padEnd(15)}${String(at).padEnd(9)}${String(reached).padEnd(27)}${String(forkMs).padEnd(22)}${String(resumed.replayed).padEnd(13)}${(forkMs / reached).toFixed(2)}`,
        );
      }
    }
  } finally {
    await nc.drain().catch(() => nc.close());
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
