/**
 * Durable episodes on real parts (nats-server, Docker, openscad, the STL verifier): workspace
 * snapshots every K rounds, resume from the latest snapshot, stage checks during the episode, and
 * the retry policy for a sandbox killed from outside.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, ScriptedAgent } from '../../actors/agents/index.js';
import { runEpisode, type EpisodeResult } from '../../actors/episode/index.js';
import { mixStages } from '../../actors/episode/stages.js';
import { HOST_LABEL, LABEL, PID_LABEL } from '../../actors/sandbox/index.js';
import { buildTimeline, renderRound } from '../../actors/replay/index.js';
import type { EpisodeEvent, StageChecked } from '../../streams/events.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { episodeKit, type EpisodeKit } from '../helpers/episode.js';

const FIX = join(import.meta.dirname, '../fixtures/tasks');
let kit: EpisodeKit;
let plate: LoadedTask;
let staged: LoadedTask;
let n = 0;

beforeAll(async () => {
  kit = await episodeKit();
  plate = await loadTask(join(FIX, 'slow-openscad-plate'));
  staged = await loadTask(join(FIX, 'staged-plate'));
});
afterAll(async () => {
  await kit?.close();
});

/** Runs an episode with its own id (optionally resuming from `prior`), returning result and log. */
async function play(
  lt: LoadedTask,
  agent = createAgent('scripted', lt),
  o: { prior?: EpisodeEvent[]; snapshotEvery?: number; id?: string } = {},
): Promise<{ r: EpisodeResult; events: EpisodeEvent[]; id: string }> {
  const id = o.id ?? `${kit.runId}-dur-${++n}`;
  if (o.prior) {
    const w = kit.log.writer(id);
    for (const e of o.prior) await w.append(e);
  }
  const writer = o.prior ? await kit.log.resume(id) : kit.log.writer(id);
  const r = await runEpisode(
    lt,
    { ...kit.deps, openLog: () => writer },
    {
      episodeId: id,
      runId: kit.runId,
      agent,
      artifactsDir: join(kit.dir, id),
      ...(o.prior ? { prior: o.prior } : {}),
      ...(o.snapshotEvery !== undefined ? { snapshotEvery: o.snapshotEvery } : {}),
    },
  );
  return { r, events: await kit.log.read(id), id };
}

const of = <T extends EpisodeEvent['type']>(es: EpisodeEvent[], t: T) =>
  es.filter((e): e is Extract<EpisodeEvent, { type: T }> => e.type === t);
const verdicts = (r: EpisodeResult) => r.verdicts.map((v) => [v.criterion, v.passed]);

describe('workspace snapshots and resume', () => {
  let full: { r: EpisodeResult; events: EpisodeEvent[] };
  beforeAll(async () => {
    full = await play(plate, undefined, { snapshotEvery: 2 });
  }, 120_000);

  it('takes a snapshot every K rounds, stored by digest in the object store', async () => {
    expect(full.r.status).toBe('done');
    const snaps = of(full.events, 'workspace.snapshotted');
    expect(snaps.map((s) => s.round)).toEqual([2, 4, 6, 8]);
    expect(snaps.every((s) => s.reason === 'interval')).toBe(true);
    const tgz = await kit.blobs.get(snaps[2]!.sandboxes.main!.digest);
    expect(tgz.length).toBe(snaps[2]!.sandboxes.main!.bytes);
    expect(tgz.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b])); // gzip
  });

  it('resumes from the latest snapshot: re-runs only the actions after it, same verdicts', async () => {
    // Cut the log as a SIGKILL would: after round 7's action started, before its result.
    const cut = full.events.findIndex((e) => e.type === 'action.started' && e.round === 7);
    const prior = full.events.slice(0, cut + 1);
    // The dead worker's sandbox, still running on this host: the resume removes it.
    const id = `${kit.runId}-dur-resume`;
    const docker = new Docker();
    const stale = await docker.createContainer({
      Image: 'engiloop/base:bookworm',
      Cmd: ['sleep', 'infinity'],
      Labels: {
        [LABEL]: '1',
        [HOST_LABEL]: hostname(),
        [PID_LABEL]: '2147483646',
        'io.engiloop.run': kit.runId,
        'io.engiloop.episode': id,
      },
    });
    await stale.start();
    const resumed = await play(plate, createAgent('scripted', plate), { prior, snapshotEvery: 2, id });
    expect(
      await stale.inspect().then(
        () => 'present',
        () => 'removed',
      ),
    ).toBe('removed');
    const ev = of(resumed.events, 'episode.resumed')[0]!;
    expect(ev.snapshotRound).toBe(6);
    expect(ev.replayed).toBe(0); // nothing recorded between the snapshot and the cut
    expect(ev.interrupted).toEqual({ round: 7, index: 0 });
    expect(ev.divergences).toEqual([]);
    expect(resumed.r.status).toBe('done');
    expect(verdicts(resumed.r)).toEqual(verdicts(full.r));
    // Round 7 needs progress.txt from rounds 1–4, restored from the snapshot: same output as before.
    const out = (es: EpisodeEvent[]) =>
      of(es, 'action.executed').map((e) => [e.round, e.result.exitCode, e.result.stdout]);
    expect(out(resumed.events)).toEqual(out(full.events));
    expect(of(resumed.events, 'action.executed').filter((e) => e.round === 7)).toHaveLength(1);
    expect(buildTimeline(resumed.events).checked).toBeGreaterThan(8); // every decision's digest
  }, 120_000);

  it('re-executes the actions recorded after the snapshot and compares them', async () => {
    const cut = full.events.findIndex((e) => e.type === 'action.executed' && e.round === 5);
    const resumed = await play(plate, createAgent('scripted', plate), {
      prior: full.events.slice(0, cut + 1),
      snapshotEvery: 2,
    });
    const ev = of(resumed.events, 'episode.resumed')[0]!;
    expect(ev.snapshotRound).toBe(4);
    expect(ev.replayed).toBe(1);
    expect(ev.divergences).toEqual([]);
    expect(ev.interrupted).toBeNull();
    expect(ev.downtimeMs).toBeGreaterThanOrEqual(ev.restoreMs!);
    expect(verdicts(resumed.r)).toEqual(verdicts(full.r));
  }, 120_000);
});

describe('stage checks', () => {
  it('checks each stage as its artifact appears, during the episode, then snapshots', async () => {
    const { r, events } = await play(staged);
    expect(r.status).toBe('done');
    expect(r.score).toBe(1);
    const checks = of(events, 'stage.checked');
    expect(checks.map((c) => [c.stage, c.round, c.passed])).toEqual([
      ['model', 2, true],
      ['scaled', 3, true],
    ]);
    // During the episode: each check comes before the next observation, long before verification.
    const at = (e: EpisodeEvent) => events.indexOf(e);
    const obs3 = events.findIndex((e) => e.type === 'observation.recorded' && e.round === 3);
    expect(at(checks[0]!)).toBeLessThan(obs3);
    expect(of(events, 'workspace.snapshotted').map((s) => [s.round, s.reason])).toEqual([
      [2, 'stage'],
      [3, 'stage'],
    ]);
    const v = of(events, 'verification.completed')[0]!;
    expect(v.stages?.weights.scaled).toEqual({ weight: 0.25, score: 1, passed: true });
    // Replay folds the log (digests checked) and shows the stage check in the round that made it.
    const tl = buildTimeline(events);
    expect(tl.rounds[1]!.harness.map((e) => e.type)).toEqual(['stage.checked', 'workspace.snapshotted']);
    expect(renderRound(tl, 1)).toMatch(/stage\.checked: stage model after round 2: score 1\.000 passed/);
  }, 120_000);

  it('a failed stage marked halt_on_fail stops the episode at that stage', async () => {
    const { r, events } = await play(staged, createAgent('scripted:bad-model', staged));
    expect(r.status).toBe('failed');
    expect(r.rounds).toBe(2); // the copy in round 3 was never made
    const c = of(events, 'stage.checked');
    expect(c).toHaveLength(1);
    expect(c[0]).toMatchObject({ stage: 'model', passed: false, halt: true });
    expect(c[0]!.verdicts.find((v) => v.criterion === 'part-bbox')?.passed).toBe(false);
    expect(of(events, 'agent.decided').map((e) => e.round)).toEqual([1, 2]);
  }, 120_000);

  it('a stage made before the stage it depends on is blocked, then checked once that stage passes', async () => {
    const steps = [
      {
        type: 'shell' as const,
        command: "echo 'cube([40, 25, 3]);' > scaled.scad && openscad -o scaled.stl scaled.scad",
      },
      {
        type: 'shell' as const,
        command: "echo 'cube([80, 50, 6]);' > part.scad && openscad -o part.stl part.scad",
      },
    ];
    const { r, events } = await play(staged, new ScriptedAgent('scripted:copy-first', steps));
    const checks = of(events, 'stage.checked');
    expect(checks.map((c) => [c.stage, c.round, c.passed, c.blockedBy?.stage ?? null])).toEqual([
      ['scaled', 1, false, 'model'],
      ['model', 2, true, null],
      ['scaled', 2, true, null], // same file, re-checked because its dependency now passes
    ]);
    expect(checks[0]!.blockedBy).toEqual({ stage: 'model', score: null, min: 1 });
    expect(r.score).toBe(1);
  }, 120_000);

  it('a weighted stage takes its share of the final score from its latest check', () => {
    const check = (stage: string, score: number): StageChecked => ({
      type: 'stage.checked',
      stage,
      round: 1,
      artifacts: {},
      verdicts: [],
      score,
      passed: score === 1,
      halt: false,
      v: 2,
      at: 0,
    });
    const task = staged.task;
    expect(mixStages(task, new Map([['scaled', check('scaled', 0)]]), { score: 1, passed: true })).toEqual({
      score: 0.75,
      passed: false,
      stages: { weights: { scaled: { weight: 0.25, score: 0, passed: false } }, finalScore: 1 },
    });
    expect(mixStages(task, new Map(), { score: 0.5, passed: false }).score).toBeCloseTo(0.375, 10);
    expect(mixStages({ ...task, stages: [] }, new Map(), { score: 0.5, passed: false })).toEqual({
      score: 0.5,
      passed: false,
    });
  });
});

describe('a sandbox killed from outside', () => {
  /** Kills the episode's container as soon as it runs, the way an OOM killer or an operator would. */
  async function killWhenRunning(running: Promise<unknown>, after = 0): Promise<string> {
    for (let i = 0; i < 400; i++) {
      for (const ep of await kit.log.listEpisodes(kit.runId)) {
        const es = await kit.log.read(ep);
        if (es.some((e) => e.type === 'episode.ended')) continue;
        const p = es.find((x) => x.type === 'sandbox.provisioned');
        const cid = p?.type === 'sandbox.provisioned' ? p.sandboxes.main : undefined;
        if (cid && of(es, 'action.executed').length >= after) {
          const c = new Docker().getContainer(cid);
          if (
            await c.inspect().then(
              (x) => x.State.Running,
              () => false,
            )
          ) {
            await c.kill();
            return cid;
          }
        }
      }
      await Promise.race([running, new Promise((r) => setTimeout(r, 50))]);
    }
    throw new Error('no running sandbox to kill');
  }

  it('is restored per the retry policy and the episode finishes, scored as usual', async () => {
    const running = play(plate, undefined, { snapshotEvery: 2 });
    await killWhenRunning(running, 3);
    const { r, events } = await running;
    expect(r.status).toBe('done');
    expect(r.score).toBe(1);
    const lost = of(events, 'sandbox.lost');
    expect(lost).toHaveLength(1);
    expect(lost[0]!.error.code).toBe('CONTAINER_GONE');
    const res = of(events, 'episode.resumed')[0]!;
    expect(res.reason).toBe('sandbox_lost');
    expect(res.snapshotRound).toBe(2);
    expect(res.divergences).toEqual([]);
  }, 120_000);

  it('ends as infra_error, never scored, once the retries are used up', async () => {
    const lt: LoadedTask = {
      ...plate,
      task: { ...plate.task, limits: { ...plate.task.limits, sandbox_retries: 0 } },
    };
    const running = play(lt);
    await killWhenRunning(running);
    const { r, events } = await running;
    expect(r.status).toBe('infra_error');
    expect(r.score).toBeNull();
    expect(r.error?.code).toBe('CONTAINER_GONE');
    // The loss is recorded, and the machine (budget 0) ends the episode there: no restore.
    expect(of(events, 'sandbox.lost')).toHaveLength(1);
    expect(of(events, 'episode.resumed')).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: 'episode.ended', status: 'infra_error', score: null });
  }, 120_000);

  it('leaves no container behind', async () => {
    expect(await kit.leftovers()).toEqual([]);
  });
});
