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
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
