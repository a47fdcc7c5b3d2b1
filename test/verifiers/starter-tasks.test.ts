/**
 * The starter benchmark's make-up: every task loads and each criterion's params parse with its
 * verifier; the suite covers the six domains and the task types the issue asks for. (Playing every
 * solution end to end is test/run/verify-suite.test.ts.)
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { loadSuite } from '../../tasks/index.js';
import { verifierRules } from '../../verifiers/index.js';

const STARTER = path.resolve('tasks/starter');

it('every task loads with valid criteria, defects and alternatives', async () => {
  const { tasks, errors } = await loadSuite(STARTER, { verifiers: verifierRules });
  expect(errors.map((e) => e.message)).toEqual([]);
  for (const t of tasks) {
    expect(t.task.interface, t.task.id).toBe('cli');
    expect(Object.keys(t.defects).length, `${t.task.id} defects`).toBeGreaterThanOrEqual(2);
  }
});

it('has at least 24 tasks, at least 3 per domain, covering the required task types', async () => {
  const { tasks } = await loadSuite(STARTER);
  expect(tasks.length).toBeGreaterThanOrEqual(24);
  const byDomain = new Map<string, number>();
  for (const t of tasks) byDomain.set(t.task.domain, (byDomain.get(t.task.domain) ?? 0) + 1);
  for (const d of ['cad', 'cae', 'cam', 'bim', 'eda', 'viz'])
    expect(byDomain.get(d) ?? 0, d).toBeGreaterThanOrEqual(3);
  const types = new Set(tasks.map((t) => t.task.type));
  for (const ty of ['single-software', 'quantitative-design', 'image-based-modeling'])
    expect(types.has(ty as never), ty).toBe(true);
  expect(tasks.filter((t) => Object.keys(t.alternatives).length > 0).length).toBeGreaterThanOrEqual(12);
});
