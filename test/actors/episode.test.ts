/**
 * Episodes end to end: real nats-server, real Docker sandboxes running the real apps, real verifiers.
 */
import { createHash } from 'node:crypto';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../actors/agents/index.js';
import { snapshotDigest } from '../../actors/episode/index.js';
import { DockerSandboxProvider } from '../../actors/sandbox/index.js';
import { fold, stateName } from '../../machines/index.js';
import type { EpisodeEvent } from '../../streams/events.js';
import { loadSuite, type LoadedTask } from '../../tasks/index.js';
import { agentOf, episodeKit, starter, STARTER, type EpisodeKit } from '../helpers/episode.js';

let kit: EpisodeKit;
let suite: LoadedTask[];
beforeAll(async () => {
  kit = await episodeKit();
  // The spine's three starter tasks; the whole suite is validated by test/run/verify-suite.test.ts.
  const spine = ['openscad-plate', 'ngspice-rc-lowpass', 'verilog-counter'];
  suite = (await loadSuite(STARTER)).tasks.filter((t) => spine.includes(t.task.id));
});
afterAll(async () => {
  await kit?.close();
});

const withLimit = (lt: LoadedTask, max_rounds: number): LoadedTask => ({
  ...lt,
  task: { ...lt.task, limits: { ...lt.task.limits, max_rounds } },
});

describe('starter tasks', () => {
  it('has the three spine tasks, each with at least two defect variants', () => {
    expect(suite.length).toBe(3);
    for (const lt of suite) expect(Object.keys(lt.defects).length, lt.task.id).toBeGreaterThanOrEqual(2);
  });

  it('every reference solution passes with score 1', async () => {
    for (const lt of suite) {
      const r = await kit.run(lt, createAgent('scripted', lt));
      expect(r.status, `${lt.task.id}: ${JSON.stringify(r.error ?? r.verdicts)}`).toBe('done');
      expect(r.score, `${lt.task.id}: ${JSON.stringify(r.verdicts.filter((v) => !v.passed))}`).toBe(1);
      expect(r.passed).toBe(true);
    }
  });

  it('every defect variant scores 0, failing the criteria it names', async () => {
    for (const lt of suite)
      for (const [name, defect] of Object.entries(lt.defects)) {
        const r = await kit.run(lt, createAgent(`scripted:${name}`, lt));
        const failed = r.verdicts.filter((v) => !v.passed).map((v) => v.criterion);
        expect(r.status, `${lt.task.id}/${name}`).toBe('done');
        expect(r.score, `${lt.task.id}/${name}`).toBe(0);
        for (const c of defect.fails) expect(failed, `${lt.task.id}/${name} should fail ${c}`).toContain(c);
        for (const v of r.verdicts.filter((x) => !x.passed)) expect(v.reason.length).toBeGreaterThan(10);
      }
  });
});

describe('episode rules', () => {
  it('an agent that never says DONE ends at the limit, and its deliverables are still verified', async () => {
    const lt = withLimit(await starter('openscad-plate'), 3);
    const ref = lt.task.reference;
    // Plays the reference, then keeps busy without ever saying DONE.
    const agent = agentOf('busy', (round) => ({
      actions: [ref[round - 1] ?? { type: 'shell', command: 'echo still working' }].flat(),
    }));
    const r = await kit.run(lt, agent);
    expect(r.status).toBe('limit');
    expect(r.rounds).toBe(3);
    // Limit rule: the artifacts are scored as they are (the reference made a correct part).
    expect(r.score).toBe(1);
  });

  it('an invalid agent output is recorded, answered with an error observation, and the episode goes on', async () => {
    const lt = await starter('openscad-plate');
    let seen = '';
    const agent = agentOf('clumsy', (round, obs) => {
      if (round === 1) return { actions: [{ type: 'teleport', to: 'mars' }] };
      seen = obs;
      return { done: true };
    });
    const r = await kit.run(lt, agent);
    expect(seen).toMatch(/ERROR: your last output was not a valid action/);
    expect(r.status).toBe('done');
    expect(r.rounds).toBe(2);
    const events = await kit.log.read(r.episodeId);
    const decided = events.filter((e) => e.type === 'agent.decided');
    expect(decided[0]).toMatchObject({
      raw: { actions: [{ type: 'teleport' }] },
      decision: { kind: 'invalid' },
    });
    // Nothing delivered: score 0 with a readable reason, not a crash.
    expect(r.score).toBe(0);
    expect(r.verdicts[0]!.reason).toMatch(/missing/i);
  });

  it('a command past its timeout is killed and the episode continues', async () => {
    const lt = await starter('openscad-plate');
    const agent = agentOf('sleepy', (round) =>
      round === 1
        ? {
            actions: [
              { type: 'shell', command: 'sleep 60', timeout_sec: 1 },
              { type: 'shell', command: 'echo after' },
            ],
          }
        : { fail: 'gave up' },
    );
    const t0 = Date.now();
    const r = await kit.run(lt, agent);
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(r.status).toBe('failed');
    const acts = (await kit.log.read(r.episodeId)).filter((e) => e.type === 'action.executed');
    expect(acts[0]!.result.timedOut).toBe(true);
    expect(acts[1]!.result.stdout.trim()).toBe('after');
  });

  it('folding the logged events gives the recorded final snapshot', async () => {
    const lt = await starter('verilog-counter');
    const r = await kit.run(lt, createAgent('scripted', lt));
    const events: EpisodeEvent[] = await kit.log.read(r.episodeId);
    const ended = events.at(-1)!;
    expect(ended.type).toBe('episode.ended');
    const folded = fold(events);
    expect(stateName(folded)).toBe('done');
    // The terminal record carries the digest of the state it closes (folded without it).
    expect(snapshotDigest(fold(events.slice(0, -1)))).toBe(r.snapshotDigest);
    expect(ended.type === 'episode.ended' && ended.snapshotDigest).toBe(r.snapshotDigest);
    expect(snapshotDigest(folded)).not.toBe(r.snapshotDigest);
  });

  it('an output over 64 KiB goes to the object store and comes back with a matching digest', async () => {
    const base = await starter('openscad-plate');
    const lt: LoadedTask = {
      ...base,
      task: { ...base.task, limits: { ...base.task.limits, output_cap_bytes: 1 << 20 } },
    };
    const agent = agentOf('loud', (round) =>
      round === 1
        ? { actions: [{ type: 'shell', command: "head -c 200000 /dev/zero | tr '\\0' a" }] }
        : { done: true },
    );
    const r = await kit.run(lt, agent);
    const act = (await kit.log.read(r.episodeId)).find((e) => e.type === 'action.executed');
    if (act?.type !== 'action.executed') throw new Error('no action event');
    expect(act.result.stdout.length).toBeLessThan(64 * 1024);
    const digest = act.result.blobs?.stdout;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const full = await kit.blobs.get(digest!);
    expect(full.length).toBe(200_000);
    expect(createHash('sha256').update(full).digest('hex')).toBe(digest);
  });

  it('deliverables are stored in the object store by digest', async () => {
    const lt = await starter('openscad-plate');
    const r = await kit.run(lt, createAgent('scripted', lt));
    const v = (await kit.log.read(r.episodeId)).find((e) => e.type === 'verification.completed');
    const digest = v?.type === 'verification.completed' ? v.artifacts['part.stl'] : null;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const bytes = await kit.blobs.get(digest!);
    expect(bytes.length).toBeGreaterThan(84);
  });
});

describe('infrastructure faults are not agent failures', () => {
  it('Docker unreachable → infra_error, not a score of 0', async () => {
    const lt = await starter('openscad-plate');
    const dead = new DockerSandboxProvider({
      docker: new Docker({ socketPath: '/tmp/engiloop-no-docker.sock' }),
    });
    const r = await kit.run(lt, createAgent('scripted', lt), { deps: { sandboxes: dead } });
    expect(r.status).toBe('infra_error');
    expect(r.score).toBeNull();
    expect(r.error?.code).toBe('DOCKER_UNREACHABLE');
    const events = await kit.log.read(r.episodeId);
    expect(events.map((e) => e.type)).toEqual(['episode.started', 'infra.failed', 'episode.ended']);
  });

  it('a missing image → infra_error naming the command that builds it', async () => {
    const base = await starter('openscad-plate');
    const lt: LoadedTask = {
      ...base,
      task: {
        ...base.task,
        environment: {
          sandboxes: { main: { ...base.task.environment.sandboxes.main!, image: 'engiloop/nope:latest' } },
        },
      },
    };
    const r = await kit.run(lt, createAgent('scripted', lt));
    expect(r.status).toBe('infra_error');
    expect(r.error?.code).toBe('IMAGE_MISSING');
    expect(r.error?.message).toMatch(/engiloop images build/);
  });

  it('leaves no container behind', async () => {
    expect(await kit.leftovers()).toEqual([]);
  });
});
