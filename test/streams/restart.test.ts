import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EpisodeLog } from '../../streams/index.js';
import { startTestNats } from '../helpers/nats.js';
import { episode } from './fixtures.js';

describe('server restart', () => {
  it('keeps acknowledged events when restarted on the same store dir', async () => {
    const storeDir = await mkdtemp(join(tmpdir(), 'engiloop-restart-'));
    try {
      const events = episode('ep-durable', 4);
      {
        await using nats = await startTestNats({ storeDir });
        const w = (await EpisodeLog.open(nats.nc)).writer('ep-durable');
        for (const e of events) await w.append(e);
        // Hard kill, no graceful shutdown flush: what was acknowledged must already be on disk.
        await nats.nc.close();
        process.kill(nats.server.pid, 'SIGKILL');
      }
      {
        await using nats = await startTestNats({ storeDir });
        const log = await EpisodeLog.open(nats.nc);
        expect(await log.read('ep-durable')).toEqual(events);
        const w = await log.resume('ep-durable');
        expect(w.position.n).toBe(events.length);
      }
    } finally {
      await rm(storeDir, { recursive: true, force: true });
    }
  });
});
