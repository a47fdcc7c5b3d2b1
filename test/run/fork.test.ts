/**
 * `engiloop fork`: a failing episode forked at a round before its mistake and finished by the
 * reference passes — from a snapshot (CLI task) and by re-executing up to the round (GUI task) —
 * and the fork's family shows in `runs`, `results`, `analyze` and `provenance`.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type Agent } from '../../actors/agents/index.js';
import { runEpisode } from '../../actors/episode/index.js';
import { forkEpisode, forkPrefix } from '../../actors/run/index.js';
import type { EpisodeEvent } from '../../streams/index.js';
import { loadTask } from '../../tasks/index.js';
import { cli } from '../helpers/cli.js';
import { episodeKit, STARTER, starter, type EpisodeKit } from '../helpers/episode.js';

let kit: EpisodeKit;
beforeAll(async () => {
  kit = await episodeKit();
});
afterAll(async () => {
  await kit?.close();
});

const resumed = (events: EpisodeEvent[]) =>
  events.find((e): e is Extract<EpisodeEvent, { type: 'episode.resumed' }> => e.type === 'episode.resumed');

describe('fork an episode at a round', () => {
  it('a CLI episode that broke its model in round 2, forked at round 1 and finished by the reference, passes', async () => {
    const lt = await starter('openscad-plate');
    const [write, render] = lt.task.reference as unknown[];
    // Round 1 writes the right model, round 2 overwrites it with a wrong one, round 3 renders it.
    const wrong = { type: 'shell', command: "sed -i 's/cube(\\[80, 50, 6\\])/cube([80, 60, 6])/' part.scad" };
    const rounds = [[write], [wrong], [render]];
    const agent: Agent = {
      name: 'breaks-it',
      decide: async ({ round }) => (round <= rounds.length ? { actions: rounds[round - 1] } : { done: true }),
    };
    const id = `${kit.runId}-original`;
    const original = await runEpisode(lt, kit.deps, {
      episodeId: id,
      runId: kit.runId,
      agent,
      artifactsDir: join(kit.dir, id),
      snapshotEvery: 1,
    });
    expect(original.passed).toBe(false);
    const events = await kit.log.read(id);

    const forkId = `${kit.runId}-fork`;
    const fork = await forkEpisode(lt, kit.log, kit.deps, {
      events,
      at: 1,
      episodeId: forkId,
      runId: `${kit.runId}f`,
      agentSpec: 'scripted',
      agent: createAgent('scripted', lt),
      artifactsDir: join(kit.dir, forkId),
    });
    expect(fork.status).toBe('done');
    expect(fork.passed).toBe(true);
    expect(fork.parent).toEqual({ episodeId: id, round: 1 });
    const got = await kit.log.read(forkId);
    const start = got[0]!;
    expect(start).toMatchObject({
      type: 'episode.started',
      episodeId: forkId,
      agent: 'scripted',
      parent: { episodeId: id, round: 1 },
    });
    // Rounds up to 1 are the original's; the workspace came back from the round-1 snapshot.
    expect(got.filter((e) => e.type === 'agent.decided' && e.round === 1)).toEqual(
      events
        .filter((e) => e.type === 'agent.decided' && e.round === 1)
        .map((e) => ({ ...e, at: expect.any(Number) })),
    );
    expect(resumed(got)).toMatchObject({ snapshotRound: 1, replayed: 0, divergences: [] });
    expect(() => forkPrefix(events, 4, { episodeId: 'x', runId: 'y', agent: 'scripted', now: 0 })).toThrow(
      /can be forked at a round from 0 to 3/,
    );
  });

  it('a GUI episode forked before its mistake re-executes up to the round and passes with the reference', async () => {
    const lt = await loadTask(join(import.meta.dirname, '../../tasks/gui/librecad-plate'));
    const original = await kit.run(lt, createAgent('scripted:wrong-width', lt));
    expect(original.passed).toBe(false);
    const events = await kit.log.read(original.episodeId);
    const forkId = `${kit.runId}-gui-fork`;
    const fork = await forkEpisode(lt, kit.log, kit.deps, {
      events,
      at: 1,
      episodeId: forkId,
      runId: `${kit.runId}g`,
      agentSpec: 'scripted',
      agent: createAgent('scripted', lt),
      artifactsDir: join(kit.dir, forkId),
    });
    expect(fork.passed, JSON.stringify(fork.verdicts.filter((v) => !v.passed))).toBe(true);
    const round1 = events.filter((e) => e.type === 'action.executed' && e.round === 1).length;
    expect(resumed(await kit.log.read(forkId))).toMatchObject({ snapshotRound: null, replayed: round1 });
  }, 900_000);
});

describe('engiloop fork', () => {
  let home: string;
  let suite: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'engiloop-home-'));
    suite = await mkdtemp(join(tmpdir(), 'engiloop-suite-'));
    await cp(join(STARTER, 'openscad-plate'), join(suite, 'openscad-plate'), { recursive: true });
    env = { NATS_URL: kit.nats.url, ENGILOOP_HOME: home };
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
    await rm(suite, { recursive: true, force: true });
  });

  it('forks from the CLI, records the parent, and runs, results, analyze and provenance show it', async () => {
    const run = await cli(
      ['run', join(suite, 'openscad-plate'), '--agent', 'scripted:wrong-width', '--json'],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    const original = (JSON.parse(run.stdout) as { results: { episodeId: string; passed: boolean }[] })
      .results[0]!;
    expect(original.passed).toBe(false);

    const bad = await cli(['fork', original.episodeId, '--at', '9', '--tasks', suite], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--at 9: episode \S+ can be forked at a round from 0 to 2/);

    const f = await cli(
      ['fork', original.episodeId, '--at', '0', '--agent', 'scripted', '--tasks', suite, '--json'],
      env,
    );
    expect(f.code, f.stderr).toBe(0);
    const rec = JSON.parse(f.stdout) as { runId: string; results: { episodeId: string; passed: boolean }[] };
    const fork = rec.results[0]!;
    expect(fork.passed).toBe(true);
    expect(f.stderr).toMatch(new RegExp(`\\[fork of ${original.episodeId}@0\\]`));

    const runs = await cli(['runs'], env);
    expect(runs.stdout).toMatch(new RegExp(`${rec.runId}.*fork of ${original.episodeId}@0`));
    const results = await cli(['results', rec.runId], env);
    expect(results.stdout).toMatch(/\[fork of /);
    const analyze = await cli(['analyze', fork.episodeId], env);
    expect(analyze.stdout).toMatch(new RegExp(`forked from ${original.episodeId} at the end of round 0`));
    const analyzeRun = await cli(['analyze', rec.runId], env);
    expect(analyzeRun.stdout).toMatch(
      new RegExp(`${fork.episodeId} is a fork of ${original.episodeId} at round 0`),
    );
    const prov = await cli(['provenance', fork.episodeId], env);
    expect(prov.stdout).toMatch(
      new RegExp(`forked from episode ${original.episodeId} at the end of round 0`),
    );
  });
});
