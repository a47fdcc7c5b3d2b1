/**
 * Which NATS faults count as transient, judged on the errors a real nats-server and nats.js 3.3.1
 * produce (a stopped server, a missing stream, a wrong last sequence, a closed connection), and the
 * retry of an idempotent request through a real restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { JetStreamStatusError } from '@nats-io/jetstream/internal';
import { Empty, NoRespondersError, RequestError, TimeoutError } from '@nats-io/nats-core';
import { describe, expect, it } from 'vitest';
import {
  connectNats,
  isConnectionClosed,
  isLogConflict,
  isTransient,
  retryTransient,
  startNatsServer,
} from '../../streams/index.js';
import { mapPublishError } from '../../streams/subjects.js';
import { startTestNats } from '../helpers/nats.js';

/** The rejection of `p` (fails the test when it resolves). */
async function failureOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  );
}

describe('isTransient on real NATS failures', () => {
  it('a request to a stopped server times out: transient', async () => {
    await using nats = await startTestNats();
    const jsm = await jetstreamManager(nats.nc, { timeout: 500 });
    await nats.server.stop();
    const err = await failureOf(jsm.streams.info('ENGILOOP_EVENTS'));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(isTransient(err)).toBe(true);
    expect(isConnectionClosed(err)).toBe(false);
  });

  it('no responders (JetStream not listening on the subject): transient, through its wrappers', async () => {
    await using nats = await startTestNats();
    const core = await failureOf(nats.nc.request('engiloop.nobody', Empty, { timeout: 1_000 }));
    expect((core as RequestError).cause).toBeInstanceOf(NoRespondersError);
    // The JetStream client wraps it once more (`JetStreamNotEnabled`).
    const js = await failureOf(jetstream(nats.nc).publish('engiloop.nostream.a', 'x'));
    expect(js).not.toBeInstanceOf(RequestError);
    expect([isTransient(core), isTransient(js)]).toEqual([true, true]);
  });

  it('a missing stream and a wrong last sequence are refusals: not transient', async () => {
    await using nats = await startTestNats();
    const missing = await failureOf(nats.jsm.streams.info('NO_SUCH_STREAM'));
    expect(missing).toBeInstanceOf(JetStreamApiError);
    expect(isTransient(missing)).toBe(false);

    await nats.jsm.streams.add({ name: 'FAULTS', subjects: ['faults.>'] });
    await nats.js.publish('faults.a', 'first');
    const stale = await failureOf(
      nats.js.publish('faults.a', 'second', { expect: { lastSubjectSequence: 7 } }),
    );
    expect((stale as JetStreamApiError).code).toBe(10071);
    expect(isTransient(stale)).toBe(false);
    // As the log's writers see it: a conflict, not retried; any other publish failure stays transient.
    const conflict = mapPublishError('episode', 'ep-1', 7, stale);
    expect([isLogConflict(conflict), isTransient(conflict)]).toEqual([true, false]);
    const timedOut = mapPublishError('episode', 'ep-1', 1, new TimeoutError());
    expect([isLogConflict(timedOut), isTransient(timedOut)]).toEqual([false, true]);
  });

  it('a closed connection is not transient, but isConnectionClosed knows it (also for a pending request)', async () => {
    await using nats = await startTestNats();
    const nc = await connectNats(nats.url);
    const silent = nats.nc.subscribe('engiloop.silent'); // receives, never answers
    await nats.nc.flush();
    const pending = failureOf(nc.request('engiloop.silent', Empty, { timeout: 30_000 }));
    await nc.close();
    const atClose = await pending;
    const after = await failureOf(nc.request('engiloop.silent', Empty, { timeout: 1_000 }));
    silent.unsubscribe();
    expect([isConnectionClosed(atClose), isConnectionClosed(after)]).toEqual([true, true]);
    expect([isTransient(atClose), isTransient(after)]).toEqual([false, false]);
  });

  it('knows the cluster codes and status replies of an election, by code, not by message', () => {
    // A cluster mid-election answers with these (nats-server errors.json); a single server cannot
    // be made to, so they are built as nats.js builds them from the server's reply.
    const api = (err_code: number, code: number, description: string) =>
      new JetStreamApiError({ err_code, code, description });
    expect(isTransient(api(10008, 503, 'JetStream system temporarily unavailable'))).toBe(true);
    expect(isTransient(api(10005, 400, 'no suitable peers for placement'))).toBe(true);
    expect(isTransient(api(10009, 500, 'JetStream cluster can not handle request'))).toBe(true);
    expect(isTransient(api(10163, 503, 'expected last sequence per subject temporarily unavailable'))).toBe(
      true,
    );
    expect(isTransient(new JetStreamStatusError('no responders', 503))).toBe(true);
    expect(isTransient(new JetStreamStatusError('request timeout', 408))).toBe(true);
    expect(isTransient(new JetStreamStatusError('message not found', 404))).toBe(false);
    // The message no longer decides: the same words on another class or code are not a NATS fault.
    expect(isTransient(api(10023, 503, 'insufficient resources'))).toBe(false);
    expect(isTransient(new Error('JetStream system temporarily unavailable'))).toBe(false);
    expect(isTransient(new Error('503: no responders available'))).toBe(false);
    expect(isTransient(new Error('put failed', { cause: new TimeoutError() }))).toBe(true);
    expect(isTransient('timeout')).toBe(false);
  });
});

describe('retryTransient', () => {
  it('retries a request through a real server restart on the same port and store', async () => {
    const storeDir = await mkdtemp(join(tmpdir(), 'engiloop-faults-'));
    let server = await startNatsServer({ storeDir });
    const nc = await connectNats(server.url);
    try {
      const jsm = await jetstreamManager(nc, { timeout: 500 });
      await jsm.streams.add({ name: 'RESTARTED', subjects: ['restarted.>'] });
      const port = Number(new URL(server.url).port);
      await server.stop();
      const retried: number[] = [];
      const info = retryTransient(() => jsm.streams.info('RESTARTED'), {
        onRetry: (_err, attempt) => retried.push(attempt),
      });
      await new Promise((r) => setTimeout(r, 1_000));
      server = await startNatsServer({ storeDir, port });
      expect((await info).config.name).toBe('RESTARTED');
      expect(retried.length).toBeGreaterThan(0);
    } finally {
      await nc.close();
      await server.stop();
      await rm(storeDir, { recursive: true, force: true });
    }
  });

  it('throws anything else at once', async () => {
    await using nats = await startTestNats();
    let calls = 0;
    const err = await failureOf(
      retryTransient(() => {
        calls++;
        return nats.jsm.streams.info('NO_SUCH_STREAM');
      }),
    );
    expect(err).toBeInstanceOf(JetStreamApiError);
    expect(calls).toBe(1);
  });
});
