/**
 * The GUI, multi-software, software-selection and open-ended suites, validated end to end like the
 * starter suite: every reference passes, every defect fails on the criteria it names (and, for
 * multi-software tasks, breaks at the stage and for the cause it names), every alternative passes.
 * Plus the minimum sizes the issues ask for, and what each suite type must show.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId, verifySuite, type SuiteCheckResult } from '../../actors/run/index.js';
import { loadSuite, type LoadedTask } from '../../tasks/index.js';
import { episodeKit, type EpisodeKit } from '../helpers/episode.js';

const TASKS = join(import.meta.dirname, '../../tasks');
let kit: EpisodeKit;
beforeAll(async () => {
  kit = await episodeKit();
});
afterAll(async () => {
  await kit?.close();
});

async function suite(dir: string): Promise<LoadedTask[]> {
  const loaded = await loadSuite(join(TASKS, dir));
  expect(loaded.errors.map((e) => e.message)).toEqual([]);
  return loaded.tasks;
}

/** For a surprise: the failed verdicts' reasons and each round's actions with their timings. */
async function diagnosis(r: SuiteCheckResult): Promise<string> {
  const lines = [`SURPRISE ${r.taskId} ${r.variant} (${r.result.episodeId}): ${r.surprise}`];
  for (const v of r.result.verdicts.filter((x) => !x.passed)) lines.push(`  ${v.criterion}: ${v.reason}`);
  for (const e of await kit.log.read(r.result.episodeId))
    if (e.type === 'observation.recorded')
      lines.push(`  round ${e.round}: ${e.text.replace(/\n(stdout:\n)?/g, ' ').slice(0, 1500)}`);
  return lines.join('\n');
}

async function check(tasks: LoadedTask[], concurrency = 2): Promise<SuiteCheckResult[]> {
  const results = await verifySuite(tasks, kit.deps, {
    runId: newRunId(),
    runDir: kit.dir,
    concurrency,
    strict: true,
  });
  for (const r of results.filter((x) => !x.ok)) console.log(await diagnosis(r));
  expect(results.filter((r) => !r.ok).map((r) => `${r.taskId} ${r.variant}: ${r.surprise}`)).toEqual([]);
  for (const lt of tasks)
    expect(Object.keys(lt.defects).length, `${lt.task.id} defects`).toBeGreaterThanOrEqual(2);
  return results;
}

describe('task suites', () => {
  it(
    'GUI: at least three tasks (LibreCAD, FreeCAD, KiCad) played through GUI actions',
    { timeout: 1_800_000 },
    async () => {
      const tasks = await suite('gui');
      expect(tasks.length).toBeGreaterThanOrEqual(3);
      expect(tasks.every((t) => t.task.interface === 'gui')).toBe(true);
      for (const lt of tasks)
        for (const step of lt.task.reference.flat()) expect(step.type, lt.task.id).not.toBe('shell');
      // One desktop at a time: the GUI references are scripts of clicks, and two FreeCAD or
      // LibreCAD desktops beside another test file on 2 cores lost inputs in CI.
      await check(tasks, 1);
    },
  );

  it(
    'multi-software: at least six workflows, each defect breaking where it says',
    { timeout: 2_400_000 },
    async () => {
      const tasks = await suite('workflows');
      expect(tasks.length).toBeGreaterThanOrEqual(6);
      for (const lt of tasks) {
        expect(lt.task.type).toBe('multi-software');
        expect(Object.keys(lt.task.environment.sandboxes).length, lt.task.id).toBeGreaterThanOrEqual(2);
        expect(
          lt.task.reference.flat().some((a) => a.type === 'handoff'),
          lt.task.id,
        ).toBe(true);
        for (const [name, d] of Object.entries(lt.defects))
          expect(d.breaks_at, `${lt.task.id} ${name}`).toBeDefined();
      }
      const results = await check(tasks);
      for (const r of results.filter((x) => x.variant === 'reference'))
        expect(r.result.attribution, r.taskId).toBeNull();
    },
  );

  it(
    'software selection: at least three, an alternative app judged the same',
    { timeout: 1_800_000 },
    async () => {
      const tasks = await suite('selection');
      expect(tasks.length).toBeGreaterThanOrEqual(3);
      const results = await check(tasks);
      for (const lt of tasks) {
        expect(lt.task.type).toBe('software-selection');
        expect(
          lt.task.deliverables.some((d) => d.sandbox === '*'),
          lt.task.id,
        ).toBe(true);
        expect(Object.keys(lt.alternatives).length, lt.task.id).toBeGreaterThanOrEqual(1);
      }
      // The choice is recorded: reference and alternative deliverables came from different sandboxes.
      for (const lt of tasks) {
        const sources = async (variant: string) => {
          const r = results.find((x) => x.taskId === lt.task.id && x.variant === variant)!;
          const v = (await kit.log.read(r.result.episodeId)).find((e) => e.type === 'verification.completed');
          return v?.type === 'verification.completed' ? v.sources : undefined;
        };
        const ref = await sources('reference');
        const alt = await sources(`alternative:${Object.keys(lt.alternatives)[0]}`);
        expect(ref, lt.task.id).toBeDefined();
        expect(alt, lt.task.id).not.toEqual(ref);
      }
    },
  );

  it('open-ended: at least two, with the long decision limit', { timeout: 1_800_000 }, async () => {
    const tasks = await suite('open-ended');
    expect(tasks.length).toBeGreaterThanOrEqual(2);
    for (const lt of tasks) {
      expect(lt.task.type).toBe('open-ended');
      expect(lt.task.limits.max_rounds).toBe(lt.task.interface === 'gui' ? 300 : 150);
    }
    await check(tasks);
  });

  it('leaves no container behind', async () => {
    expect(await kit.leftovers()).toEqual([]);
  });
});
