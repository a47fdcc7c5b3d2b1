/** The lint rule that keeps machines/ pure: no I/O, no clock, no randomness. */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: join(import.meta.dirname, '../..') });
const lint = async (code: string) => {
  const [r] = await eslint.lintText(code, { filePath: join(import.meta.dirname, '../../machines/probe.ts') });
  return r!.messages.map((m) => m.message);
};

describe('machines/ purity rule', () => {
  it.each([
    ["import { readFile } from 'node:fs/promises';\nexport const f = readFile;", /machines\/ is pure/],
    ["import Docker from 'dockerode';\nexport const d = Docker;", /machines\/ is pure/],
    ["import { connect } from '@nats-io/transport-node';\nexport const c = connect;", /machines\/ is pure/],
    ['export const t = Date.now();', /clock/],
    ['export const t = new Date();', /clock/],
    ['export const r = Math.random();', /randomness/],
    ['export const e = process.env;', /process/],
  ])('rejects %s', async (code, msg) => {
    const messages = await lint(code);
    expect(
      messages.some((m) => msg.test(m)),
      messages.join('\n'),
    ).toBe(true);
  });

  it('accepts pure code and the real machine files', async () => {
    expect(await lint("import { setup } from 'xstate';\nexport const m = setup({});\n")).toEqual([]);
    const results = await eslint.lintFiles(['machines/']);
    expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}: ${m.message}`))).toEqual([]);
  });
});
