import { describe, expect, it } from 'vitest';
import { hasCode } from '../../core/index.js';
import { connectNats, NatsServerError, startNatsServer } from '../../streams/index.js';

describe('startNatsServer / connectNats', () => {
  it('starts on a random port with sync_interval: always and stops', async () => {
    const server = await startNatsServer();
    expect(server.port).toBeGreaterThan(0);
    const nc = await connectNats(server.url);
    expect(nc.info?.jetstream).toBe(true);
    await nc.close();
    await server.stop();
    await server.stop(); // idempotent
    await expect(connectNats(server.url, { timeout: 500 })).rejects.toSatisfy(
      (e) => hasCode(e, 'NATS_UNREACHABLE') && (e as { retryable: boolean }).retryable,
    );
  });

  it('names the bootstrap script when nats-server is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const err = await startNatsServer().catch((e: unknown) => e);
      expect(hasCode(err, 'NATS_SERVER_MISSING')).toBe(true);
      expect((err as Error).message).toContain('bash scripts/bootstrap-system.sh');
    } finally {
      process.env.PATH = path;
    }
  });

  it('reports an early exit with the server stderr', async () => {
    await using first = await startNatsServer();
    const err = await startNatsServer({ port: first.port }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NatsServerError);
    expect(hasCode(err, 'NATS_SERVER_EXITED')).toBe(true);
    expect((err as NatsServerError).stderrTail.join('\n')).toMatch(/address already in use|listen/i);
  });
});
