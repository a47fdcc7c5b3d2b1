/** The taxonomy in code and in README.md agree, and every mode has an owner and a category. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { MODES } from '../../actors/analysis/index.js';

it("README's failure-mode table lists exactly the modes of the code, with the same owners", async () => {
  const readme = await readFile(join(import.meta.dirname, '../../README.md'), 'utf8');
  const rows = [...readme.matchAll(/^\| `([a-z_]+\.[a-z_]+)` \| (\w+) \|/gm)].map((m) => [m[1], m[2]]);
  expect(rows).toEqual(Object.entries(MODES).map(([id, m]) => [id, m.owner]));
});

it('every mode is category.mode with one of the four owners', () => {
  for (const [id, m] of Object.entries(MODES)) {
    expect(id).toMatch(/^[a-z]+\.[a-z_]+$/);
    expect(['agent', 'task', 'harness', 'infrastructure']).toContain(m.owner);
    expect(m.title.length).toBeGreaterThan(10);
  }
});
