/**
 * The machine-wide embedded nats-server: started by the first engiloop command that needs it, left
 * running in the background (its own process group, output to a log file) and shared by every later
 * command on this machine — `run`, `submit`, any number of `worker`s, `status`, `events`, `replay`.
 * Its store, pid file, log and URL live in one folder (default `~/.engiloop/nats`).
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { NatsServerError } from './errors.js';
import { natsServerVersion } from './server.js';

const alive = async (pid: number): Promise<boolean> =>
  (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).includes('nats-server');

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const c = createConnection({ port, host: '127.0.0.1' });
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });

/** The running local server's pid and URL, or null. */
export async function localNatsStatus(dir: string): Promise<{ pid: number; url: string } | null> {
  const pid = Number((await readFile(join(dir, 'nats-server.pid'), 'utf8').catch(() => '')).trim());
  const url = (await readFile(join(dir, 'url'), 'utf8').catch(() => '')).trim();
  if (!pid || !url || !(await alive(pid))) return null;
  return { pid, url };
}

/** The URL of the local server, starting it if it is not running. */
export async function ensureLocalNats(dir: string): Promise<{ url: string; started: boolean }> {
  const running = await localNatsStatus(dir);
  if (running) return { url: running.url, started: false };
  await mkdir(dir, { recursive: true });
  const [major, minor] = natsServerVersion();
  const sync = major > 2 || (major === 2 && minor >= 10) ? '  sync_interval: always\n' : '';
  const port = await freePort();
  const conf = join(dir, 'nats-server.conf');
  await writeFile(
    conf,
    `listen: "127.0.0.1:${port}"\npid_file: ${JSON.stringify(join(dir, 'nats-server.pid'))}\n` +
      `log_file: ${JSON.stringify(join(dir, 'server.log'))}\njetstream {\n  store_dir: ${JSON.stringify(dir)}\n${sync}}\n`,
  );
  const child = spawn('nats-server', ['-c', conf], { stdio: 'ignore', detached: true });
  child.unref();
  for (let i = 0; i < 150; i++) {
    if (await accepts(port)) {
      const url = `nats://127.0.0.1:${port}`;
      await writeFile(join(dir, 'url'), url);
      return { url, started: true };
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new NatsServerError(
    'NATS_SERVER_EXITED',
    `the local nats-server did not start; see ${join(dir, 'server.log')}`,
  );
}

/** Stops the local server (SIGTERM, waiting up to 10 s); false when none was running. */
export async function stopLocalNats(dir: string): Promise<boolean> {
  const s = await localNatsStatus(dir);
  if (!s) return false;
  process.kill(s.pid, 'SIGTERM');
  for (let i = 0; i < 100 && (await alive(s.pid)); i++) await new Promise((r) => setTimeout(r, 100));
  return true;
}
