/**
 * Starts a local `nats-server` with JetStream for tests, benches and single-machine runs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncDispose } from '../core/index.js';
import { NatsServerError } from './errors.js';

/** Options for {@link startNatsServer}. */
export interface NatsServerOptions {
  /** JetStream store directory. Default: a fresh temp dir, removed by `stop()`. A given dir is kept. */
  storeDir?: string;
  /** Client port; 0 (default) lets the server pick a free one. */
  port?: number;
  /** fsync every write (`sync_interval: always`, server ≥ 2.10). Default true. */
  syncAlways?: boolean;
  /** How long to wait for "Server is ready", in ms. Default 15 000. */
  readyTimeoutMs?: number;
  /** Join a cluster of nodes on 127.0.0.1 (clustered JetStream). Default: a standalone server. */
  cluster?: NatsClusterOptions;
}

/** A node's place in a loopback cluster (see `deploy/nats/cluster.conf.example` for hosts). */
export interface NatsClusterOptions {
  /** Cluster name, the same on every node. */
  name: string;
  /** This node's `server_name`, unique in the cluster (clustered JetStream requires one). */
  serverName: string;
  /** This node's route port. */
  port: number;
  /** Route ports of all the nodes; this node's own is allowed (the server skips a route to itself). */
  routes: number[];
}

/** A running server. Stop it with `stop()` or `await using`. */
export interface NatsServerHandle {
  /** `nats://127.0.0.1:<port>`. */
  url: string;
  port: number;
  storeDir: string;
  /** Process id, for tests that kill the server hard. */
  pid: number;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process exited. Idempotent. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const TAIL_LINES = 40;
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * A server left running on this store dir by a process that was killed (the server runs in its
 * own process group, so it can outlive us): stop it before starting a new one on the same store.
 */
async function stopStale(pidPath: string): Promise<void> {
  const pid = Number((await readFile(pidPath, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!cmd.includes('nats-server')) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')) !== ''; i++)
    await new Promise((r) => setTimeout(r, 50));
}

/** Version of the `nats-server` on PATH as `[major, minor, patch]`; throws `NATS_SERVER_MISSING`. */
export function natsServerVersion(): [number, number, number] {
  const r = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
  if (r.error) {
    throw new NatsServerError(
      'NATS_SERVER_MISSING',
      'nats-server is not on PATH; install it with `bash scripts/bootstrap-system.sh`',
      { cause: r.error },
    );
  }
  const m = /v(\d+)\.(\d+)\.(\d+)/.exec(`${r.stdout}${r.stderr}`);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
}

/**
 * Spawns `nats-server` with JetStream on 127.0.0.1 and resolves once it logged "Server is ready".
 *
 * @throws NatsServerError `NATS_SERVER_MISSING` (binary not on PATH), `NATS_SERVER_EXITED` (exited
 *   before ready; carries its last stderr lines), `NATS_SERVER_TIMEOUT` (not ready in time).
 * @example
 * ```ts
 * await using server = await startNatsServer();
 * const nc = await connectNats(server.url);
 * ```
 */
export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const [major, minor] = natsServerVersion();
  const ownDir = opts.storeDir === undefined;
  const storeDir = opts.storeDir ?? (await mkdtemp(join(tmpdir(), 'engiloop-nats-')));
  let sync = '';
  if (opts.syncAlways ?? true) {
    if (major > 2 || (major === 2 && minor >= 10)) sync = '  sync_interval: always\n';
    else
      console.warn(
        `nats-server ${major}.${minor} lacks sync_interval: always; using the default fsync interval`,
      );
  }
  // -1 asks the server for a free port; we read the chosen one from its log.
  const port = opts.port && opts.port > 0 ? opts.port : -1;
  const confPath = join(storeDir, 'nats-server.conf');
  const pidPath = join(storeDir, 'nats-server.pid');
  await stopStale(pidPath);
  const conf = `listen: "127.0.0.1:${port}"\npid_file: ${JSON.stringify(pidPath)}\njetstream {\n  store_dir: ${JSON.stringify(storeDir)}\n${sync}}\n${opts.cluster ? clusterConf(opts.cluster) : ''}`;
  await writeFile(confPath, conf);

  // Its own process group: a Ctrl-C on the terminal reaches engiloop, which then records the
  // interruption and stops this server itself, instead of the server dying first.
  const child = spawn('nats-server', ['-c', confPath], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  track(child);
  const tail: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const ready = new Promise<number>((resolve, reject) => {
    let chosen = 0;
    let buf = '';
    const timer = setTimeout(() => {
      reject(
        new NatsServerError(
          'NATS_SERVER_TIMEOUT',
          `nats-server not ready after ${opts.readyTimeoutMs ?? 15_000} ms`,
          { stderrTail: [...tail] },
        ),
      );
    }, opts.readyTimeoutMs ?? 15_000);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      buf += chunk;
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        const m = /Listening for client connections on [^\s]*:(\d+)/.exec(line);
        if (m) chosen = Number(m[1]);
        if (line.includes('Server is ready') && chosen > 0) {
          clearTimeout(timer);
          resolve(chosen);
        }
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(
        new NatsServerError(
          'NATS_SERVER_MISSING',
          `cannot run nats-server (bash scripts/bootstrap-system.sh installs it): ${err.message}`,
          { cause: err },
        ),
      );
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const last = tail.slice(-10).join('\n');
      reject(
        new NatsServerError(
          'NATS_SERVER_EXITED',
          `nats-server exited early (code ${code}, signal ${signal}):\n${last}`,
          { stderrTail: [...tail] },
        ),
      );
    });
  });

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(killer);
      }
      running.delete(child);
      if (ownDir) await rm(storeDir, { recursive: true, force: true });
    })();
    return stopped;
  };

  let chosenPort: number;
  try {
    chosenPort = await ready;
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: `nats://127.0.0.1:${chosenPort}`,
    port: chosenPort,
    storeDir,
    pid: child.pid!,
    stop,
    [asyncDispose]: stop,
  };
}

function clusterConf(c: NatsClusterOptions): string {
  const routes = c.routes.map((p) => JSON.stringify(`nats-route://127.0.0.1:${p}`)).join(', ');
  return `server_name: ${JSON.stringify(c.serverName)}\ncluster {\n  name: ${JSON.stringify(c.name)}\n  listen: "127.0.0.1:${c.port}"\n  routes: [${routes}]\n}\n`;
}

/** Kills servers left running if the process exits without stopping them. */
function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
}
