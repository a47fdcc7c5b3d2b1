import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasCode } from '../../core/index.js';
import { RunIndex } from '../../streams/index.js';
import { startTestNats, type TestNats } from '../helpers/nats.js';

let nats: TestNats;
let runs: RunIndex;

beforeAll(async () => {
  nats = await startTestNats();
  runs = await RunIndex.open(nats.nc, () => 2_000);
});
afterAll(() => nats?.close());

describe('RunIndex', () => {
  it('records a run start and finish and reads both back', async () => {
    const started = await runs.start('run-a', {
      suite: 'starter',
      agent: 'scripted',
      episodes: ['ep-1', 'ep-2'],
      startedAt: 1_000,
    });
    expect(await runs.get('run-a')).toEqual({ started, finished: null });
    const finished = await runs.finish('run-a', { score: 0.5, episodes: { 'ep-1': 1, 'ep-2': 0 } });
    expect(finished.finishedAt).toBe(2_000);
    expect(await runs.get('run-a')).toEqual({ started, finished });
  });

  it('returns null for an unknown run and refuses to finish it', async () => {
    expect(await runs.get('run-unknown')).toBeNull();
    await expect(runs.finish('run-unknown', {})).rejects.toSatisfy((e) => hasCode(e, 'RUN_NOT_FOUND'));
  });

  it('deduplicates a retried start and refuses a second start or finish', async () => {
    const info = { suite: 's', agent: 'a', episodes: [], startedAt: 1 };
    await runs.start('run-b', info);
    await runs.start('run-b', info); // retry within the duplicate window
    await runs.finish('run-b', null);
    await expect(runs.finish('run-b', null)).rejects.toSatisfy((e) => hasCode(e, 'LOG_CONFLICT'));
    const raw = await nats.jsm.streams.info('ENGILOOP_RUNS', { subjects_filter: 'engiloop.run.run-b' });
    expect(raw.state.subjects?.['engiloop.run.run-b']).toBe(2);
  });

  it('lists runs newest first', async () => {
    for (const id of ['run-x', 'run-y', 'run-z'])
      await runs.start(id, { suite: 's', agent: 'a', episodes: [], startedAt: 1 });
    const ids = await runs.list();
    expect(ids.slice(0, 3)).toEqual(['run-z', 'run-y', 'run-x']);
    expect(ids).toContain('run-a');
  });
});
