/**
 * Unknown-param detection walks a params schema beside the value: nested objects, arrays, records,
 * discriminated unions (also nested ones), plain unions by best fit; and suggests the closest key.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closest, editDistance, unknownParams } from '../../verifiers/param-keys.js';
import { taskFile, taskFilesOf } from '../../verifiers/params.js';

const Schema = z.discriminatedUnion('check', [
  z.object({
    check: z.literal('a'),
    abs_tol: z.number().default(0.1),
    range: z.object({ min: z.number() }).optional(),
  }),
  z.discriminatedUnion('property', [
    z.object({ check: z.literal('shape'), property: z.literal('volume'), expected: z.number() }),
    z.object({ check: z.literal('shape'), property: z.literal('bbox'), size: z.array(z.number()) }),
  ]),
  z.object({
    check: z.literal('list'),
    values: z.array(z.object({ path: z.string(), unit: z.string().optional() })),
    by_name: z.record(z.string(), z.object({ min: z.number() })),
    either: z.union([z.object({ x: z.number() }), z.object({ y: z.number(), z: z.number() })]).optional(),
  }),
]);

describe('unknownParams', () => {
  it('names a misspelled key with the closest valid one, at any depth', () => {
    expect(unknownParams(Schema, { check: 'a', abs_tl: 1 })).toEqual([
      { path: ['abs_tl'], known: ['check', 'abs_tol', 'range'], suggestion: 'abs_tol' },
    ]);
    expect(unknownParams(Schema, { check: 'a', range: { mn: 1 } })[0]).toMatchObject({
      path: ['range', 'mn'],
      suggestion: 'min',
    });
    const list = { check: 'list', values: [{ path: 'a' }, { pth: 'b' }], by_name: { w: { mni: 2 } } };
    expect(unknownParams(Schema, list).map((u) => [u.path, u.suggestion])).toEqual([
      [['values', 1, 'pth'], 'path'],
      [['by_name', 'w', 'mni'], 'min'],
    ]);
  });

  it('follows a discriminator into a nested discriminated union', () => {
    expect(unknownParams(Schema, { check: 'shape', property: 'volume', expected: 1 })).toEqual([]);
    expect(unknownParams(Schema, { check: 'shape', property: 'volume', expectd: 1 })[0]).toMatchObject({
      path: ['expectd'],
      suggestion: 'expected',
    });
  });

  it('takes the best-fitting branch of a plain union, and gives no suggestion for a far key', () => {
    expect(unknownParams(Schema, { check: 'list', values: [], by_name: {}, either: { y: 1, z: 2 } })).toEqual(
      [],
    );
    const far = unknownParams(Schema, { check: 'a', colour: 'red' });
    expect(far[0]?.suggestion).toBeUndefined();
    expect(far[0]?.known).toContain('abs_tol');
  });

  it('edit distance counts a swap once; closest stays within a typo', () => {
    expect(editDistance('abs_tl', 'abs_tol')).toBe(1);
    expect(editDistance('tagret', 'target')).toBe(1);
    expect(closest('tagret', ['target', 'range'])).toBe('target');
    expect(closest('colour', ['target', 'range'])).toBeUndefined();
  });
});

describe('taskFilesOf', () => {
  it('finds every param that names a task-folder file', () => {
    const s = z.object({ testbench: taskFile(), refs: z.array(taskFile()).default([]), other: z.string() });
    expect(taskFilesOf(s, { testbench: 'hidden/tb.v', refs: ['a.png', 'b.png'], other: 'x' })).toEqual([
      { path: ['testbench'], file: 'hidden/tb.v' },
      { path: ['refs', 0], file: 'a.png' },
      { path: ['refs', 1], file: 'b.png' },
    ]);
    expect(s.safeParse({ testbench: '../etc/passwd', other: 'x' }).success).toBe(false);
  });
});
