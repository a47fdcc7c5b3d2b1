/** The one retry loop: its budget, what it does not retry, and abort. Real timers, short budgets. */
import { describe, expect, it } from 'vitest';
import { retry, retryDelayMs, RETRY_BUDGET, type RetryBudget } from '../../core/index.js';

const small: RetryBudget = { attempts: 4, firstDelayMs: 5, maxDelayMs: 20 };
const flaky = () => new Error('flaky');

describe('retry', () => {
  it('documents one budget: 9 attempts, 250 ms doubling to 4 s, 19.75 s of waiting in all', () => {
    const waits = Array.from({ length: RETRY_BUDGET.attempts - 1 }, (_, i) => retryDelayMs(i + 1));
    expect(waits).toEqual([250, 500, 1_000, 2_000, 4_000, 4_000, 4_000, 4_000]);
    expect(waits.reduce((a, b) => a + b, 0)).toBe(19_750);
  });

  it('retries until the operation succeeds, reporting each retry', async () => {
    const seen: [number, number][] = [];
    const v = await retry(
      async (attempt) => {
        if (attempt < 3) throw flaky();
        return `ok after ${attempt}`;
      },
      {
        retryable: () => true,
        budget: small,
        onRetry: (_e, attempt, delayMs) => seen.push([attempt, delayMs]),
      },
    );
    expect(v).toBe('ok after 3');
    expect(seen).toEqual([
      [1, 5],
      [2, 10],
    ]);
  });

  it('stops at the budget and throws the last failure', async () => {
    let calls = 0;
    const err = await retry(
      async (attempt) => {
        calls++;
        throw new Error(`failure ${attempt}`);
      },
      { retryable: () => true, budget: small },
    ).catch((e: Error) => e);
    expect(calls).toBe(small.attempts);
    expect((err as Error).message).toBe('failure 4');
  });

  it('does not retry an error retryable() refuses', async () => {
    let calls = 0;
    const fatal = new Error('conflict');
    const err = await retry(
      async () => {
        calls++;
        throw calls === 1 ? flaky() : fatal;
      },
      { retryable: (e) => e !== fatal, budget: small },
    ).catch((e: unknown) => e);
    expect([err, calls]).toEqual([fatal, 2]);
  });

  it('honours abort: a wait under way ends at once and no further attempt starts', async () => {
    const ac = new AbortController();
    let calls = 0;
    const t0 = Date.now();
    const p = retry(
      async () => {
        calls++;
        throw flaky();
      },
      {
        retryable: () => true,
        signal: ac.signal,
        budget: { attempts: 5, firstDelayMs: 10_000, maxDelayMs: 10_000 },
      },
    ).catch((e: Error) => e);
    setTimeout(() => ac.abort(), 50);
    const err = await p;
    expect((err as Error).message).toBe('flaky');
    expect(calls).toBe(1);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('does not retry once the signal is aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls++;
          throw flaky();
        },
        { retryable: () => true, signal: ac.signal, budget: small },
      ),
    ).rejects.toThrow('flaky');
    expect(calls).toBe(1);
  });
});
