/**
 * The registry and `verifyCriterion` / `verifyAll`: unknown verifiers, bad params, missing and empty
 * deliverables, throws and hangs all become failing verdicts with a reason.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asyncDispose } from '../../core/index.js';
import {
  criterionProblem,
  getVerifier,
  isUnknownVerifier,
  listVerifiers,
  registerVerifier,
  verifyAll,
  verifyCriterion,
  type RunTool,
  type VerifierContext,
} from '../../verifiers/index.js';
import { tempDir } from '../helpers/artifacts.js';

// These tests run no app: a RunTool that is never meant to be called.
const noTool: RunTool = () => Promise.reject(new Error('no tool in this test'));

let dir: { path: string } & AsyncDisposable;
let ctx: VerifierContext;

registerVerifier({
  name: 'test.hang',
  description: 'never answers',
  params: z.object({}),
  verify: () => new Promise(() => undefined),
});
registerVerifier({
  name: 'test.throw',
  description: 'throws',
  params: z.object({}),
  verify: () => Promise.reject(new Error('boom')),
});
registerVerifier({
  name: 'test.abort',
  description: 'resolves when told to stop',
  params: z.object({}),
  verify: (c) =>
    new Promise((resolve) =>
      c.signal?.addEventListener('abort', () => resolve({ passed: true, score: 1, reason: 'stopped' })),
    ),
});

beforeAll(async () => {
  dir = await tempDir('run');
  await mkdir(path.join(dir.path, 'sub'));
  await writeFile(path.join(dir.path, 'part.v'), 'module m; endmodule\n');
  await writeFile(path.join(dir.path, 'empty.v'), '');
  ctx = { artifactsDir: dir.path, taskDir: dir.path, runTool: noTool };
});
afterAll(() => dir[asyncDispose]());

describe('registry', () => {
  it('lists the built-in verifiers by name', () => {
    const names = listVerifiers().map((v) => v.name);
    for (const n of ['file.format', 'spice.measure', 'stl.geometry', 'verilog.testbench'])
      expect(names).toContain(n);
    for (const v of listVerifiers()) expect(v.description.length).toBeGreaterThan(0);
  });
  it('throws a clear error listing the known names for an unknown one', () => {
    try {
      getVerifier('stl.volume');
      expect.unreachable();
    } catch (err) {
      expect(isUnknownVerifier(err)).toBe(true);
      expect((err as Error).message).toMatch(
        /unknown verifier "stl.volume" \(known: .*file\.format.*stl\.geometry/,
      );
    }
  });
  it('refuses a second verifier with a taken name', () => {
    expect(() => registerVerifier({ ...getVerifier('file.format') })).toThrow(/already registered/);
  });
  it('checks criteria for the task loader', () => {
    expect(criterionProblem('stl.geometry', { property: 'genus', expected: 4 })).toBeNull();
    expect(criterionProblem('stl.geometry', { property: 'volume', expected: 1 })?.message).toMatch(
      /rel_tol or abs_tol/,
    );
    expect(criterionProblem('nope', {})?.message).toMatch(/unknown verifier/);
  });
});

describe('verifyCriterion', () => {
  const c = { id: 'c', role: 'check' as const, params: {} };
  it('fails a missing deliverable before running the verifier', async () => {
    const v = await verifyCriterion(ctx, { ...c, verifier: 'test.hang', deliverable: 'part.stl' });
    expect(v).toMatchObject({ passed: false, score: 0, reason: 'deliverable part.stl is missing' });
  });
  it('fails an empty deliverable, a directory and a path outside the artifacts', async () => {
    expect((await verifyCriterion(ctx, { ...c, verifier: 'test.hang', deliverable: 'empty.v' })).reason).toBe(
      'deliverable empty.v is empty (0 bytes)',
    );
    expect((await verifyCriterion(ctx, { ...c, verifier: 'test.hang', deliverable: 'sub' })).reason).toMatch(
      /not a regular file/,
    );
    expect((await verifyCriterion(ctx, { ...c, verifier: 'test.hang', deliverable: '../x' })).reason).toMatch(
      /escapes/,
    );
  });
  it('times out a hanging verifier with a failing verdict', async () => {
    const v = await verifyCriterion(ctx, { ...c, verifier: 'test.hang' }, { timeoutMs: 200 });
    expect(v).toEqual({ passed: false, score: 0, reason: 'verifier test.hang timed out after 200 ms' });
  });
  it('tells the verifier to stop through its signal at the limit', async () => {
    const v = await verifyCriterion(ctx, { ...c, verifier: 'test.abort' }, { timeoutMs: 100 });
    expect(v.reason).toMatch(/timed out after 100 ms/);
  });
  it('turns a throw into a failing verdict with the message', async () => {
    const v = await verifyCriterion(ctx, { ...c, verifier: 'test.throw' });
    expect(v).toEqual({ passed: false, score: 0, reason: 'verifier test.throw failed: boom' });
  });
  it('fails an unknown verifier and invalid params with the reason', async () => {
    expect((await verifyCriterion(ctx, { ...c, verifier: 'nope' })).reason).toMatch(
      /unknown verifier "nope"/,
    );
    const v = await verifyCriterion(ctx, { ...c, verifier: 'stl.geometry', params: { property: 'area' } });
    expect(v.reason).toMatch(/^task error: invalid params for stl.geometry: property/);
  });
});

describe('verifyAll', () => {
  it('labels each verdict with criterion, verifier and role, and passes the declared format', async () => {
    const verdicts = await verifyAll(ctx, {
      deliverables: [{ path: 'part.v', format: 'v' }],
      criteria: [
        { id: 'format', verifier: 'file.format', deliverable: 'part.v', role: 'check', params: {} },
        { id: 'gone', verifier: 'file.format', deliverable: 'none.v', role: 'feasibility', params: {} },
      ],
    });
    expect(verdicts).toMatchObject([
      { criterion: 'format', verifier: 'file.format', role: 'check', passed: true, expected: 'verilog' },
      {
        criterion: 'gone',
        verifier: 'file.format',
        role: 'feasibility',
        passed: false,
        reason: 'deliverable none.v is missing',
      },
    ]);
  });
});
