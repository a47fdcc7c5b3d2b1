import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasCode } from '../../core/index.js';
import { EpisodeLog, EVENTS_STREAM, LogConflictError } from '../../streams/index.js';
import { startTestNats, type TestNats } from '../helpers/nats.js';
import { episode, executed } from './fixtures.js';

let nats: TestNats;
let log: EpisodeLog;

beforeAll(async () => {
  nats = await startTestNats();
  log = await EpisodeLog.open(nats.nc);
});
afterAll(() => nats?.close());

async function conflictOf(p: Promise<unknown>): Promise<LogConflictError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LogConflictError);
  expect(hasCode(err, 'LOG_CONFLICT')).toBe(true);
  return err as LogConflictError;
}

describe('EpisodeLog', () => {
  it('appends and reads back an episode in order with its content', async () => {
    const events = episode('ep-round-trip', 5);
    const w = log.writer('ep-round-trip');
    const results = [];
    for (const e of events) results.push(await w.append(e));
    expect(results.map((r) => r.n)).toEqual(events.map((_, i) => i + 1));
    expect(results.every((r) => !r.duplicate)).toBe(true);
    expect(await log.read('ep-round-trip')).toEqual(events);
    const raw = await log.readRaw('ep-round-trip');
    expect(raw.map((r) => r.seq)).toEqual(results.map((r) => r.seq));
    expect(raw.map((r) => r.msgId)).toEqual(events.map((_, i) => `ep-round-trip:${i + 1}`));
  });

  it('returns [] for an unknown episode and rejects invalid ids', async () => {
    expect(await log.read('ep-never-written')).toEqual([]);
    expect(() => log.writer('bad.id')).toThrow(/invalid episode id/);
    await expect(log.read('a>b')).rejects.toThrow(/INVALID|invalid/);
  });

  it('deduplicates a retried append of the same position', async () => {
    const w = log.writer('ep-dedup');
    const first = await w.append(executed(1));
    // A retry from the same position (e.g. the ack was lost) stores nothing new.
    const retry = await log.writer('ep-dedup').append(executed(1));
    expect(retry).toEqual({ seq: first.seq, n: 1, duplicate: true });
    expect(await log.readRaw('ep-dedup')).toHaveLength(1);
    const info = await nats.jsm.streams.info(EVENTS_STREAM, { subjects_filter: 'engiloop.ep.ep-dedup' });
    expect(info.state.subjects?.['engiloop.ep.ep-dedup']).toBe(1);
  });

  it('rejects a second writer that lost the race, and it stays stopped', async () => {
    const a = log.writer('ep-race');
    const b = log.writer('ep-race');
    await a.append(executed(1));
    await a.append(executed(2));
    // Same position, different content: the duplicate id is caught by comparing stored bytes.
    const err = await conflictOf(b.append(executed(1, 'something else')));
    expect(err.message).toContain('ep-race');
    expect(err.id).toBe('ep-race');
    await conflictOf(b.append(executed(3)));
    // A stale expectation with a fresh id is rejected by JetStream itself.
    const stale = log.writer('ep-race', { expectedLastSeq: 1, n: 7 });
    const err2 = await conflictOf(stale.append(executed(8)));
    expect(err2.expectedSeq).toBe(1);
    expect(err2.message).toContain('expected last seq 1');
    expect((await log.read('ep-race')).length).toBe(2);
  });

  it('resumes after the last stored event', async () => {
    const w = log.writer('ep-resume');
    await w.append(executed(1));
    const last = await w.append(executed(2));
    const r = await log.resume('ep-resume');
    expect(r.position).toEqual({ expectedLastSeq: last.seq, n: 2 });
    expect((await r.append(executed(3))).n).toBe(3);
    expect((await log.read('ep-resume')).map((e) => (e.type === 'action.executed' ? e.round : 0))).toEqual([
      1, 2, 3,
    ]);
  });

  it('appends pipelined batches, deduplicating a replayed batch', async () => {
    const events = episode('ep-pipe', 20);
    const w = log.writer('ep-pipe');
    const results = await w.appendPipelined(events);
    expect(results.map((r) => r.n)).toEqual(events.map((_, i) => i + 1));
    expect(new Set(results.map((r) => r.seq)).size).toBe(events.length);
    expect(await log.read('ep-pipe')).toEqual(events);
    const replay = await log.writer('ep-pipe').appendPipelined(events);
    expect(replay.every((r) => r.duplicate)).toBe(true);
    expect(await log.readRaw('ep-pipe')).toHaveLength(events.length);
  });

  it('stops a stale pipelined writer at its first event', async () => {
    await log.writer('ep-pipe-race').append(executed(1));
    await conflictOf(
      log.writer('ep-pipe-race', { expectedLastSeq: 0, n: 5 }).appendPipelined([executed(6), executed(7)]),
    );
    expect(await log.readRaw('ep-pipe-race')).toHaveLength(1);
  });

  it('lists episodes, optionally by prefix', async () => {
    await log.writer('list-a').append(executed(1));
    await log.writer('list-b').append(executed(1));
    const all = await log.listEpisodes();
    expect(all).toEqual(expect.arrayContaining(['list-a', 'list-b', 'ep-round-trip']));
    expect(await log.listEpisodes('list-')).toEqual(['list-a', 'list-b']);
  });
});
