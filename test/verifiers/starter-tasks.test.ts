/**
 * Every starter task: task.yaml and defects load, each criterion's params parse with its verifier's
 * schema, the reference solution (played for real in a sandbox) passes every criterion, and each
 * defect fails exactly the criteria it names.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import { criterionProblem, getVerifier, taskScore, verifyAll } from '../../verifiers/index.js';
import { asyncDispose } from '../../actors/sandbox/index.js';
import { contextFor, playSolution, tempDir, toolKit } from '../helpers/artifacts.js';

const STARTER = path.resolve('tasks/starter');
const ids = readdirSync(STARTER).sort();
const kit = toolKit('starter-tasks');
afterAll(() => kit[asyncDispose]());

async function play(t: LoadedTask, steps: LoadedTask['task']['reference']) {
  await using art = await tempDir(t.task.id);
  const log = await playSolution(
    kit,
    steps,
    t.task.deliverables.map((d) => d.path),
    art.path,
  );
  const verdicts = await verifyAll(contextFor(kit, art.path, t.dir), t.task);
  return { verdicts, log, score: taskScore(t.task.scoring, verdicts) };
}

it('has the three starter tasks', () => {
  expect(ids).toEqual(['ngspice-rc-lowpass', 'openscad-plate', 'verilog-counter']);
});

describe.each(ids)('starter task %s', (id) => {
  const dir = path.join(STARTER, id);

  it('loads, and every criterion parses with its verifier', async () => {
    const t = await loadTask(dir, { checkCriterion: criterionProblem });
    expect(t.task.id).toBe(id);
    expect(t.task.interface).toBe('cli');
    expect(t.task.environment.sandboxes['main']?.image).toBe('engiloop/cli:latest');
    for (const c of t.task.criteria)
      expect(getVerifier(c.verifier).params.safeParse(c.params).success).toBe(true);
    expect(Object.keys(t.defects).length).toBeGreaterThanOrEqual(2);
  });

  it('passes its reference solution on every criterion', async () => {
    const t = await loadTask(dir, { checkCriterion: criterionProblem });
    const { verdicts, log, score } = await play(t, t.task.reference);
    const failing = verdicts.filter((v) => !v.passed);
    expect(failing, `${JSON.stringify(failing, null, 2)}\n${log.join('\n')}`).toEqual([]);
    expect(score).toBe(1);
  });

  it('fails each defect on exactly the criteria it names', async () => {
    const t = await loadTask(dir, { checkCriterion: criterionProblem });
    for (const [name, defect] of Object.entries(t.defects)) {
      const { verdicts, score } = await play(t, defect.actions);
      const failed = verdicts.filter((v) => !v.passed || v.score === 0).map((v) => v.criterion);
      expect([name, failed.sort()], JSON.stringify(verdicts, null, 2)).toEqual([
        name,
        [...defect.fails].sort(),
      ]);
      expect(score, name).toBe(0);
    }
  });
});
