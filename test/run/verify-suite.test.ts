/**
 * The whole starter suite, validated end to end: every reference passes, every defect fails on the
 * criteria it names, every alternative passes — in real sandboxes with the real verifiers.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge, newRunId, planChecks, verifySuite, type SuiteCheckResult } from '../../actors/run/index.js';
import { loadSuite, type LoadedTask } from '../../tasks/index.js';
import { provenance } from '../../actors/provenance/index.js';
import { cli } from '../helpers/cli.js';
import { episodeKit, STARTER, type EpisodeKit } from '../helpers/episode.js';

let kit: EpisodeKit;
let suite: LoadedTask[];
beforeAll(async () => {
  kit = await episodeKit();
  const loaded = await loadSuite(STARTER);
  expect(loaded.errors.map((e) => e.message)).toEqual([]);
  suite = loaded.tasks;
});
afterAll(async () => {
  await kit?.close();
});

describe('verify-suite', () => {
  it('the starter suite holds no surprise', { timeout: 1_800_000 }, async () => {
    const results: SuiteCheckResult[] = await verifySuite(suite, kit.deps, {
      runId: newRunId(),
      runDir: kit.dir,
      concurrency: 2,
      strict: true,
    });
    const surprises = results.filter((r) => !r.ok).map((r) => `${r.taskId} ${r.variant}: ${r.surprise}`);
    expect(surprises).toEqual([]);
    expect(results.length).toBe(planChecks(suite).length);
    for (const lt of suite) {
      expect(Object.keys(lt.defects).length, `${lt.task.id} defects`).toBeGreaterThanOrEqual(2);
      const ref = results.find((r) => r.taskId === lt.task.id && r.variant === 'reference')!;
      expect(ref.result.passed).toBe(true);
    }
    expect(await kit.leftovers()).toEqual([]);
  });

  it('judge flags a defect that passes and a reference that fails', () => {
    const [lt] = suite;
    const base = {
      episodeId: 'e',
      taskId: lt!.task.id,
      agent: 'scripted',
      status: 'done' as const,
      rounds: 2,
      durationMs: 1,
      error: null,
      snapshotDigest: null,
      events: 5,
      usage: null,
      attribution: null,
      haltedAt: null,
    };
    const verdict = (criterion: string, passed: boolean) => ({
      criterion,
      verifier: 'x',
      role: 'check' as const,
      passed,
      score: passed ? 1 : 0,
      reason: passed ? 'ok' : 'off',
    });
    const pass = { ...base, score: 1, passed: true, verdicts: [verdict('a', true), verdict('b', true)] };
    const failA = { ...base, score: 0, passed: false, verdicts: [verdict('a', false), verdict('b', true)] };
    const defect = {
      lt: lt!,
      variant: 'defect:x',
      agent: 'scripted:x',
      expect: 'fail' as const,
      mustFail: ['a'],
    };
    const ref = { lt: lt!, variant: 'reference', agent: 'scripted', expect: 'pass' as const, mustFail: [] };
    expect(judge(defect, failA).ok).toBe(true);
    expect(judge(defect, pass).surprise).toMatch(/should score 0/);
    expect(judge({ ...defect, mustFail: ['b'] }, failA).surprise).toMatch(/should fail b, which passed/);
    const failAB = { ...failA, verdicts: [verdict('a', false), verdict('b', false)] };
    expect(judge(defect, failAB).ok).toBe(true);
    expect(judge(defect, failAB, true).surprise).toMatch(/also failed b/);
    expect(judge(ref, failA).surprise).toMatch(/should pass but a failed/);
    expect(
      judge(ref, { ...pass, status: 'infra_error', score: null, error: { code: 'X', message: 'y' } }).ok,
    ).toBe(false);
    // A defect that must halt at a stage, and one that keeps a weighted stage's share of the score.
    const halts = { ...defect, status: 'failed' as const, breaksAt: { stage: 'model' } };
    const halted = {
      ...failA,
      status: 'failed' as const,
      haltedAt: 'model',
      attribution: { stage: 'model', artifact: 'main:part.stl', cause: 'agent' as const, detail: 'a: off' },
    };
    expect(judge(halts, halted).ok).toBe(true);
    expect(judge(halts, failA).surprise).toMatch(/ended done, not failed/);
    expect(judge(halts, { ...halted, haltedAt: 'mesh' }).surprise).toMatch(
      /should halt at stage model but halted at mesh/,
    );
    expect(judge(defect, halted).surprise).toMatch(/ended failed, not done \(halted at stage model\)/);
    const weighted = { ...defect, score: 0.4 };
    expect(judge(weighted, { ...failA, score: 0.4 }).ok).toBe(true);
    expect(judge(weighted, failA).surprise).toMatch(/should score 0.4 but scored 0/);
  });

  it('halting and weighted-stage defects are checked end to end', { timeout: 300_000 }, async () => {
    const fixtures = await loadSuite(join(STARTER, '..', '..', 'test', 'fixtures', 'tasks'));
    const ids = ['archive-print', 'staged-plate', 'weighted-plate'];
    const staged = fixtures.tasks.filter((t) => ids.includes(t.task.id));
    expect(staged.map((t) => t.task.id).sort()).toEqual(ids);
    const results = await verifySuite(staged, kit.deps, {
      runId: newRunId(),
      runDir: kit.dir,
      concurrency: 2,
      strict: true,
    });
    expect(results.filter((r) => !r.ok).map((r) => `${r.taskId} ${r.variant}: ${r.surprise}`)).toEqual([]);
    const bad = results.find((r) => r.variant === 'defect:bad-model')!;
    expect([bad.result.status, bad.result.haltedAt]).toEqual(['failed', 'model']);
    const wrongScale = results.find((r) => r.variant === 'defect:wrong-scale')!;
    expect(wrongScale.result.score).toBeCloseTo(0.4, 6);
    expect(wrongScale.result.attribution).toMatchObject({ stage: 'scaled', cause: 'agent' });
    // Only what the slice stage consumes is blamed: the archived STEP was never needed downstream.
    const log = results.find((r) => r.variant === 'defect:slicer-log')!;
    expect(log.result.attribution).toMatchObject({ stage: 'slice', cause: 'agent' });
    const g = provenance(await kit.log.read(log.result.episodeId));
    const node = (p: string) => g.nodes.find((n) => n.sandbox === 'cad' && n.path === p)!;
    expect(node('block.stl').consumedBy).toEqual(['slice']);
    expect(node('block.step').consumedBy).toEqual([]);
    // One score per file, by the task's rule, whether from the stage check or the final one.
    for (const n of g.nodes)
      for (const c of n.checks) expect([0, 1], `${n.path} ${c.source}`).toContain(c.score);
    const lost = results.find((r) => r.variant === 'defect:stl-not-handed')!;
    expect(lost.result.attribution?.detail).toMatch(/needed block\.stl from cad/);
  });

  it('the command exits 1 and names the surprise when a "defect" actually passes', async () => {
    const root = await mkdtemp(join(tmpdir(), 'engiloop-vs-'));
    try {
      await cp(join(STARTER, 'verilog-counter'), join(root, 'verilog-counter'), { recursive: true });
      // A defect variant that plays the correct design: it cannot fail, so the suite is wrong.
      const ref = suite.find((t) => t.task.id === 'verilog-counter')!.task.reference;
      await writeFile(
        join(root, 'verilog-counter', 'defects', 'not-a-defect.yaml'),
        `description: plays the reference\nfails: [testbench]\nactions: ${JSON.stringify(ref)}\n`,
      );
      const r = await cli(['tasks', 'verify-suite', root], { NATS_URL: kit.nats.url, ENGILOOP_HOME: root });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/defect:not-a-defect\s+fail\s+done\s+1\.000.*SURPRISE: should score 0/);
      expect(r.stdout).toMatch(/reference\s+pass\s+done\s+1\.000\s+-\s+\S+ \S+\s+ok/);
      expect(r.stdout).toMatch(/1 surprise\(s\)/);
      // The run is recorded like any other: listed by `runs`, its table shown by `results`.
      const runId = /recorded as run (\w+)/.exec(r.stderr)?.[1];
      expect(runId, r.stderr).toBeDefined();
      const env = { NATS_URL: kit.nats.url, ENGILOOP_HOME: root };
      const runs = await cli(['runs'], env);
      expect(runs.stdout).toContain(runId!);
      expect(runs.stdout).toMatch(/verify-suite/);
      const res = await cli(['results', runId!, '--json'], env);
      const rec = JSON.parse(res.stdout) as {
        results: { status: string }[];
        checks: { variant: string; ok: boolean }[];
      };
      expect(rec.results).toHaveLength(rec.checks.length);
      expect(rec.checks.find((c) => c.variant === 'defect:not-a-defect')?.ok).toBe(false);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
