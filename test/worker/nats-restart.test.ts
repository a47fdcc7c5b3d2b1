/**
 * nats-server restarted in the middle of an episode: appends wait and retry (same message ids),
 * the connection comes back, the episode finishes, and no acknowledged event is lost.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createAgent } from '../../actors/agents/index.js';
import { runEpisode, verifyTask } from '../../actors/episode/index.js';
import { DockerSandboxProvider, createRunTool } from '../../actors/sandbox/index.js';
import { BlobStore, EpisodeLog, connectNats, startNatsServer } from '../../streams/index.js';
import { loadTask } from '../../tasks/index.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

it('an episode survives a nats-server restart with nothing lost', { timeout: 300_000 }, async () => {
  const storeDir = await mkdtemp(join(tmpdir(), 'engiloop-restart-'));
  const port = await freePort();
  let server = await startNatsServer({ storeDir, port });
  const nc = await connectNats(server.url);
  try {
    const log = await EpisodeLog.open(nc);
    const blobs = await BlobStore.open(nc);
    const provider = new DockerSandboxProvider();
    const lt = await loadTask(join(import.meta.dirname, '../fixtures/tasks/slow-openscad-plate'));
    const episodeId = `restart-${Date.now()}`;
    const running = runEpisode(
      lt,
      {
        openLog: (id) => log.writer(id),
        blobs,
        sandboxes: provider,
        runTool: createRunTool(provider),
        verify: verifyTask,
      },
      {
        episodeId,
        runId: 'restart',
        agent: createAgent('scripted', lt),
        artifactsDir: join(storeDir, 'artifacts'),
      },
    );
    // Let it get going, then take the server away for a moment and bring it back on the same store.
    for (let i = 0; i < 200 && (await log.readRaw(episodeId)).length < 8; i++)
      await new Promise((r) => setTimeout(r, 50));
    const before = (await log.readRaw(episodeId)).length;
    expect(before).toBeGreaterThanOrEqual(8);
    await server.stop();
    await new Promise((r) => setTimeout(r, 1_500));
    server = await startNatsServer({ storeDir, port });
    const r = await running;
    expect(r.status).toBe('done');
    expect(r.score).toBe(1);
    const raw = await log.readRaw(episodeId);
    expect(raw.length).toBe(r.events);
    expect(raw.map((x) => x.n)).toEqual(raw.map((_, i) => i + 1));
    const events = await log.read(episodeId);
    const done = events
      .filter((e) => e.type === 'action.executed')
      .map((e) => (e.type === 'action.executed' ? `${e.round}.${e.index}` : ''));
    expect(new Set(done).size).toBe(done.length);
    expect(events.at(-1)?.type).toBe('episode.ended');
  } finally {
    await nc.close().catch(() => undefined);
    await server.stop();
    await rm(storeDir, { recursive: true, force: true });
  }
});
