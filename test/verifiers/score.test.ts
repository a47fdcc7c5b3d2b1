/** Scoring as EngiWorld defines it: binary, quantitative (gated), closeness and EngiScore. */
import { describe, expect, it } from 'vitest';
import {
  binaryScore,
  closeness,
  engiScore,
  quantitativeScore,
  relativeError,
  taskScore,
  type ScoredVerdict,
} from '../../verifiers/index.js';

const check = (passed: boolean): ScoredVerdict => ({ role: 'check', passed, score: passed ? 1 : 0 });
const gate = (passed: boolean): ScoredVerdict => ({ role: 'feasibility', passed, score: passed ? 1 : 0 });
const quality = (score: number): ScoredVerdict => ({ role: 'quality', passed: score > 0, score });

describe('closeness', () => {
  it('is 1 up to full, 0 from zero, linear between', () => {
    expect(closeness(0)).toBe(1);
    expect(closeness(0.02)).toBe(1);
    expect(closeness(0.11)).toBeCloseTo(0.5, 12);
    expect(closeness(0.2)).toBe(0);
    expect(closeness(0.5)).toBe(0);
    expect(closeness(-0.11)).toBeCloseTo(0.5, 12);
  });
  it('takes other bounds, and scores a non-finite error 0', () => {
    expect(closeness(0.05, { full: 0, zero: 0.1 })).toBeCloseTo(0.5, 12);
    expect(closeness(Number.NaN)).toBe(0);
    expect(closeness(Infinity)).toBe(0);
  });
  it('relative error falls back to absolute error at a zero target', () => {
    expect(relativeError(1100, 1000)).toBeCloseTo(0.1, 12);
    expect(relativeError(900, 1000)).toBeCloseTo(0.1, 12);
    expect(relativeError(0.3, 0)).toBeCloseTo(0.3, 12);
  });
});

describe('binary tasks', () => {
  it('score 1 only when every criterion passes', () => {
    expect(binaryScore([check(true), check(true)])).toBe(1);
    expect(binaryScore([check(true), check(false)])).toBe(0);
    expect(binaryScore([])).toBe(0);
    expect(taskScore('binary', [check(true)])).toBe(1);
  });
});

describe('quantitative tasks', () => {
  it('score the quality when every gate passes', () => {
    expect(quantitativeScore([gate(true), gate(true), quality(0.7)])).toBeCloseTo(0.7, 12);
  });
  it('score 0 when a feasibility gate or a check fails', () => {
    expect(quantitativeScore([gate(false), gate(true), quality(1)])).toBe(0);
    expect(quantitativeScore([check(false), gate(true), quality(1)])).toBe(0);
  });
  it('average several quality scores, clamped to [0, 1]', () => {
    expect(quantitativeScore([gate(true), quality(1), quality(0.5)])).toBeCloseTo(0.75, 12);
    expect(quantitativeScore([quality(2), quality(-1)])).toBeCloseTo(0.5, 12);
    expect(taskScore('quantitative', [gate(true), quality(0.25)])).toBeCloseTo(0.25, 12);
  });
  it('score 0 without any quality criterion', () => {
    expect(quantitativeScore([gate(true)])).toBe(0);
  });
});

describe('engiScore', () => {
  it('is 100 × the mean over tasks of each task mean, tasks weighted equally', () => {
    const scores = new Map([
      ['a', [1, 0]],
      ['b', [1]],
    ]);
    expect(engiScore(scores)).toBeCloseTo(75, 12);
  });
  it('does not let a task with many episodes weigh more', () => {
    expect(
      engiScore(
        new Map([
          ['a', [1, 1, 1, 1, 1, 1]],
          ['b', [0]],
        ]),
      ),
    ).toBeCloseTo(50, 12);
  });
  it('leaves out tasks with no scores, and is 0 for nothing', () => {
    expect(
      engiScore(
        new Map([
          ['a', [0.5]],
          ['b', []],
        ]),
      ),
    ).toBeCloseTo(50, 12);
    expect(engiScore(new Map())).toBe(0);
  });
});
