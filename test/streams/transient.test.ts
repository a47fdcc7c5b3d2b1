/** Which NATS errors are worth retrying, and the retry loop itself (pure: no server). */
import { TimeoutError } from '@nats-io/nats-core';
import { describe, expect, it } from 'vitest';
import { isTransient, retryTransient } from '../../streams/index.js';

describe('isTransient', () => {
  it('knows timeouts, no responders, elections and drops, also as a cause', () => {
    expect(isTransient(new TimeoutError())).toBe(true);
    expect(isTransient(new Error('503: no responders available'))).toBe(true);
    expect(isTransient(new Error('JetStream system temporarily unavailable'))).toBe(true);
    expect(isTransient(new Error('put failed', { cause: new TimeoutError() }))).toBe(true);
    expect(isTransient(new Error('stream not found'))).toBe(false);
    expect(isTransient(new Error('wrong last sequence: 4'))).toBe(false);
    expect(isTransient('timeout')).toBe(false);
  });
});

describe('retryTransient', () => {
  it('retries a transient failure until it succeeds', async () => {
    let calls = 0;
    const v = await retryTransient(async () => {
      if (++calls < 3) throw new Error('503 no responders');
      return 'ok';
    });
    expect([v, calls]).toEqual(['ok', 3]);
  });

  it('throws any other error at once, and a transient one after its budget', async () => {
    let calls = 0;
    const other = retryTransient(async () => {
      calls++;
      throw new Error('stream not found');
    });
    await expect(other).rejects.toThrow('stream not found');
    expect(calls).toBe(1);
    const t0 = Date.now();
    await expect(
      retryTransient(async () => {
        throw new TimeoutError();
      }, 600),
    ).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
  });
});
