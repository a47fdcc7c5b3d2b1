/**
 * Multi-software episodes on real apps (OpenSCAD in one sandbox, PrusaSlicer in another): a
 * hand-off moves the artifact through the object store by SHA-256 and is recorded; stages check the
 * intermediate artifacts; `engiloop provenance` prints the artifact graph; and a failed chain is
 * attributed to the stage where it broke and to its cause (lost, stale or wrong-format hand-off).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../actors/agents/index.js';
import { runEpisode, type EpisodeResult } from '../../actors/episode/index.js';
import { replayExecute } from '../../actors/replay/index.js';
import { provenance, renderDot, renderProvenance } from '../../actors/provenance/index.js';
import type { EpisodeEvent } from '../../streams/events.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { cli } from '../helpers/cli.js';
import { episodeKit, type EpisodeKit } from '../helpers/episode.js';

let kit: EpisodeKit;
let lt: LoadedTask;
beforeAll(async () => {
  kit = await episodeKit();
  lt = await loadTask(join(import.meta.dirname, '../fixtures/tasks/handoff-print'));
});
afterAll(async () => {
  await kit?.close();
});

async function play(spec: string): Promise<{ r: EpisodeResult; events: EpisodeEvent[] }> {
  const r = await kit.run(lt, createAgent(spec, lt));
  return { r, events: await kit.log.read(r.episodeId) };
}
const of = <T extends EpisodeEvent['type']>(es: EpisodeEvent[], t: T) =>
  es.filter((e): e is Extract<EpisodeEvent, { type: T }> => e.type === t);

describe('the reference workflow', () => {
  let run: { r: EpisodeResult; events: EpisodeEvent[] };
  beforeAll(async () => {
    run = await play('scripted');
  }, 180_000);

  it('passes, with one recorded hand-off of the exact bytes', async () => {
    expect(run.r.status).toBe('done');
    expect(run.r.score).toBe(1);
    expect(run.r.attribution).toBeNull();
    const [h] = of(run.events, 'artifact.handed_off');
    expect(h).toMatchObject({
      round: 2,
      from: { sandbox: 'cad', path: 'block.stl' },
      to: { sandbox: 'slicer', path: 'block.stl' },
      format: 'stl',
      declared: 'stl',
    });
    const bytes = await kit.blobs.get(h!.digest);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(h!.digest);
    expect(h!.bytes).toBe(bytes.length);
    // The STL in cad was made in round 1; the hand-off knows when.
    const r1 = of(run.events, 'action.executed').find((e) => e.round === 1)!;
    expect(h!.producedAt).toBeLessThanOrEqual(r1.at + 1000);
  });

  it('checks each stage on its intermediate artifact, in its own sandbox', () => {
    const checks = of(run.events, 'stage.checked').map((c) => [c.stage, c.round, c.passed]);
    expect(checks).toEqual([
      ['model', 1, true],
      ['slice', 3, true],
    ]);
  });

  it('prints the artifact graph: producer rounds, the hand-off edge, verdicts', () => {
    const g = provenance(run.events);
    const byId = (sb: string, p: string) => g.nodes.find((n) => n.sandbox === sb && n.path === p)!;
    expect(byId('cad', 'block.stl').producedBy).toMatchObject({ round: 1, index: 0 });
    expect(byId('cad', 'block.stl').producedBy?.command).toMatch(/openscad/);
    expect(byId('slicer', 'block.stl').producedBy).toMatchObject({ round: 2, command: 'handoff from cad' });
    expect(byId('slicer', 'block.gcode').producedBy).toMatchObject({ round: 3 });
    expect(byId('slicer', 'block.gcode').checks.map((c) => [c.source, c.passed])).toEqual([
      ['stage slice', true],
      ['final', true],
    ]);
    expect(g.edges).toEqual([
      expect.objectContaining({
        from: byId('cad', 'block.stl').id,
        to: byId('slicer', 'block.stl').id,
        round: 2,
      }),
    ]);
    expect(renderProvenance(g)).toMatch(
      /cad:block\.stl[\s\S]*made by round 1\.1 \(echo[\s\S]*└─ handed off in round 2 \(stl/,
    );
    expect(renderDot(g)).toMatch(
      /^digraph[\s\S]*cluster_cad[\s\S]*-> "slicer:block\.stl@[0-9a-f]{12}" \[label="handoff r2"\]/,
    );
  });

  it('resumes across both sandboxes after a crash: hand-offs re-run, same verdicts', async () => {
    // Cut as a SIGKILL would, just after the slicing started in round 3.
    const cut = run.events.findIndex((e) => e.type === 'action.started' && e.round === 3);
    const id = `${kit.runId}-handoff-resume`;
    const w = kit.log.writer(id);
    const prior = run.events.slice(0, cut + 1);
    for (const e of prior) await w.append(e);
    const writer = await kit.log.resume(id);
    const r = await runEpisode(
      lt,
      { ...kit.deps, openLog: () => writer },
      {
        episodeId: id,
        runId: kit.runId,
        agent: createAgent('scripted', lt),
        artifactsDir: join(kit.dir, id),
        prior,
      },
    );
    const events = await kit.log.read(id);
    const res = of(events, 'episode.resumed')[0]!;
    expect(Object.keys(res.sandboxes).sort()).toEqual(['cad', 'slicer']);
    // The stage check after round 1 took a snapshot of both sandboxes; only the hand-off is re-run.
    expect(res.snapshotRound).toBe(1);
    expect(res.replayed).toBe(1);
    expect(res.divergences).toEqual([]);
    expect(res.interrupted).toEqual({ round: 3, index: 0 });
    expect(r.status).toBe('done');
    expect(r.verdicts.map((v) => [v.criterion, v.passed])).toEqual(
      run.r.verdicts.map((v) => [v.criterion, v.passed]),
    );
  }, 180_000);

  it('replay --execute re-runs it across both sandboxes: identical', async () => {
    const id = `${kit.runId}-handoff-replay`;
    const rep = await replayExecute(run.events, lt, kit.deps, {
      episodeId: id,
      runId: kit.runId,
      artifactsDir: join(kit.dir, id),
      read: (e) => kit.log.read(e),
    });
    expect(rep.firstDivergence).toBeNull();
    expect(of(await kit.log.read(id), 'artifact.handed_off')[0]!.digest).toBe(
      of(run.events, 'artifact.handed_off')[0]!.digest,
    );
  }, 180_000);

  it('`engiloop provenance` prints it from the log, and --dot', async () => {
    const env = { NATS_URL: kit.nats.url };
    const text = await cli(['provenance', run.r.episodeId], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/slicer:block\.gcode/);
    expect(text.stdout).toMatch(/Chain: no failure to attribute/);
    const dot = await cli(['provenance', run.r.episodeId, '--dot'], env);
    expect(dot.stdout).toMatch(/^digraph/);
    const none = await cli(['provenance', 'no-such-episode'], env);
    expect(none.code).toBe(2);
  }, 60_000);
});

describe('where the chain broke', () => {
  it.each([
    ['lost-handoff', 'lost_handoff', /needed block\.stl from cad .* never handed off/],
    ['stale-handoff', 'stale_handoff', /slicer got block\.stl [0-9a-f]{12} in round 2, but cad's latest is/],
    ['wrong-format', 'wrong_format', /out\.stl handed off as block\.stl in round 2 is text, not stl/],
  ])(
    '%s: at stage "slice", cause %s',
    async (defect, cause, detail) => {
      const { r } = await play(`scripted:${defect}`);
      expect(r.passed).toBe(false);
      expect(r.attribution).toMatchObject({ stage: 'slice', artifact: 'cad:block.stl', cause });
      expect(r.attribution?.detail).toMatch(detail);
    },
    180_000,
  );

  it('leaves no container behind', async () => {
    expect(await kit.leftovers()).toEqual([]);
  });
});
