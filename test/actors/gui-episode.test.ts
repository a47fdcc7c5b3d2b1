/**
 * GUI episodes on the real desktop image (Xvfb, openbox, xdotool, LibreCAD), a real nats-server and
 * Docker: the app is started and waited for, every observation carries a fresh screenshot in the
 * object store, a turn stops at its first failing action, shell commands are refused, a resumed GUI
 * episode rebuilds the app's state by re-running every action, and `replay --execute` compares
 * screenshots by pixel difference.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../actors/agents/index.js';
import { runEpisode, type EpisodeResult } from '../../actors/episode/index.js';
import { replayExecute } from '../../actors/replay/index.js';
import type { EpisodeEvent } from '../../streams/events.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { cli } from '../helpers/cli.js';
import { agentOf, episodeKit, type EpisodeKit } from '../helpers/episode.js';

let kit: EpisodeKit;
let lt: LoadedTask;
let n = 0;
beforeAll(async () => {
  kit = await episodeKit();
  lt = await loadTask(join(import.meta.dirname, '../fixtures/tasks/gui-librecad-smoke'));
});
afterAll(async () => {
  await kit?.close();
});

async function play(prior?: EpisodeEvent[]): Promise<{ r: EpisodeResult; events: EpisodeEvent[] }> {
  const id = `${kit.runId}-gui-${++n}`;
  if (prior) {
    const w = kit.log.writer(id);
    for (const e of prior) await w.append(e);
  }
  const writer = prior ? await kit.log.resume(id) : kit.log.writer(id);
  const r = await runEpisode(
    lt,
    { ...kit.deps, openLog: () => writer },
    {
      episodeId: id,
      runId: kit.runId,
      agent: hostile(),
      artifactsDir: join(kit.dir, id),
      ...(prior ? { prior } : {}),
    },
  );
  return { r, events: await kit.log.read(id) };
}
/** The fixture's reference with a shell command sent as round 3, as an agent might send one. */
function hostile(): Agent {
  const ref = lt.task.reference;
  const rounds = [ref[0]!, ref[1]!, { type: 'shell', command: 'touch drawing.dxf' }, ref[2]!];
  return agentOf('scripted+shell', (round) => {
    const s = rounds[round - 1];
    return s === undefined ? { done: true } : { actions: Array.isArray(s) ? s : [s] };
  });
}
const of = <T extends EpisodeEvent['type']>(es: EpisodeEvent[], t: T) =>
  es.filter((e): e is Extract<EpisodeEvent, { type: T }> => e.type === t);

describe('a GUI episode', () => {
  let run: { r: EpisodeResult; events: EpisodeEvent[] };
  beforeAll(async () => {
    run = await play();
  }, 180_000);

  it('runs to the end and verifies (nothing delivered: a failed criterion, not an infra fault)', () => {
    expect(run.r.error).toBeNull();
    expect(run.r.status).toBe('done');
    expect(run.r.rounds).toBe(5);
    expect(run.r.verdicts[0]).toMatchObject({ criterion: 'delivered', passed: false });
  });

  it('shows a fresh 1920×1080 screenshot from the object store with every observation', async () => {
    const obs = of(run.events, 'observation.recorded');
    expect(obs).toHaveLength(5);
    for (const o of obs) {
      expect(o.screenshot).toMatch(/^[0-9a-f]{64}$/);
      expect(o.images?.[0]).toMatchObject({
        name: 'screenshot.png',
        mediaType: 'image/png',
        digest: o.screenshot,
      });
      expect(o.text).toMatch(/Windows \(\* = focused\):\n {2}\* LibreCAD/);
    }
    const png = await kit.blobs.get(obs[1]!.screenshot!);
    expect(png.readUInt32BE(16)).toBe(1920); // IHDR width
    expect(png.readUInt32BE(20)).toBe(1080);
    // Typing "line" changed the screen.
    expect(obs[1]!.screenshot).not.toBe(obs[0]!.screenshot);
  });

  it("`engiloop replay --screenshots` writes each round's screenshot; the round view names it", async () => {
    const dir = join(kit.dir, 'shots');
    const id = of(run.events, 'episode.started')[0]!.episodeId;
    const r = await cli(['replay', id, '--round', '2', '--screenshots', dir], { NATS_URL: kit.nats.url });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/screenshot: sha256 [0-9a-f]{64}/);
    const files = (await readdir(dir)).sort();
    expect(files).toEqual(['round-1.png', 'round-2.png', 'round-3.png', 'round-4.png', 'round-5.png']);
    const png = await readFile(join(dir, 'round-2.png'));
    expect(png.equals(await kit.blobs.get(of(run.events, 'observation.recorded')[1]!.screenshot!))).toBe(
      true,
    );
  }, 60_000);

  it('stops a turn at its first failing action and records the rest as skipped', () => {
    const r2 = of(run.events, 'action.executed').filter((e) => e.round === 2);
    expect(r2.map((e) => [e.result.exitCode, e.result.skipped ?? false])).toEqual([
      [1, false],
      [null, true],
    ]);
    expect(r2[0]!.result.stderr).toMatch(
      /OUT_OF_SCREEN: click at \(2500, 10\) is outside the 1920×1080 screen/,
    );
  });

  it('refuses shell commands in a GUI task, as an answer the agent sees', () => {
    const r3 = of(run.events, 'action.executed').find((e) => e.round === 3)!;
    expect(r3.result.exitCode).toBeNull();
    expect(r3.result.stderr).toMatch(/shell commands are not available in a GUI task/);
    expect(of(run.events, 'observation.recorded')[3]!.text).toMatch(/not available in a GUI task/);
  });

  it('replay --execute re-drives it on a fresh desktop and compares the screenshots', async () => {
    const id = `${kit.runId}-gui-replay`;
    const rep = await replayExecute(run.events, lt, kit.deps, {
      episodeId: id,
      runId: kit.runId,
      artifactsDir: join(kit.dir, id),
      read: (e) => kit.log.read(e),
    });
    expect(rep.screenshots).toHaveLength(5);
    expect(rep.firstDivergence, JSON.stringify(rep.screenshots)).toBeNull();
    expect(Math.max(...rep.screenshots.map((s) => s.diff))).toBeLessThan(0.01);
    // A threshold of zero shows the comparison is real: some pixels always differ a little
    // (a blinking cursor), or the digests match exactly.
    const strict = await replayExecute(run.events, lt, kit.deps, {
      episodeId: `${id}-strict`,
      runId: kit.runId,
      artifactsDir: join(kit.dir, `${id}-strict`),
      read: (e) => kit.log.read(e),
      maxPixelDiff: -1,
    });
    expect(strict.firstDivergence?.what).toBe('screenshot');
    expect(strict.firstDivergence?.round).toBe(1);
  }, 240_000);

  it('resumes after a crash by re-running every action on a fresh desktop (no file snapshot)', async () => {
    const cut = run.events.findIndex((e) => e.type === 'action.started' && e.round === 3);
    const { r, events } = await play(run.events.slice(0, cut + 1));
    const res = of(events, 'episode.resumed')[0]!;
    expect(res.snapshotRound).toBeNull();
    expect(res.replayed).toBe(3); // 1.1, 1.2 and 2.1; the skipped 2.2 is not re-run
    expect(res.divergences).toEqual([]);
    expect(r.status).toBe('done');
    expect(of(events, 'workspace.snapshotted')).toHaveLength(0);
  }, 180_000);

  it('leaves no container behind', async () => {
    expect(await kit.leftovers()).toEqual([]);
  });
});
