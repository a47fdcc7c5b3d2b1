/**
 * What closing issue 11's attacks costs, and what taking files out of a sandbox costs in memory:
 *   1. sandbox creation with the kernel-enforced disk limit (loop-device ext4 workspace) and
 *      without it (`ENGILOOP_DISK_LIMIT=off`, the anonymous volume of before);
 *   2. a 1 GiB (sparse) file taken out of a sandbox, read whole into memory as the harness did
 *      before, and streamed to a host file as it does now: peak RSS growth and time;
 *   3. the issue's 5 GiB sparse deliverable under the default 512 MiB cap: refused from its size
 *      before a byte is read;
 *   4. a workspace snapshot holding that 5 GiB sparse file (tar --sparse).
 *
 * Run directly: `npx tsx bench/hostile.ts [n]` prints the tables with ratios side by side.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { DockerSandboxProvider, type Sandbox, type SandboxCreateOptions } from '../actors/sandbox/index.js';

const OPTS: SandboxCreateOptions = {
  name: 'bench',
  image: 'engiloop/cli:latest',
  workdir: '/workspace',
  cpus: 1,
  memoryMb: 1024,
  pids: 256,
  diskMb: 8192,
  labels: { 'io.engiloop.bench': 'hostile' },
};

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** Peak RSS growth (bytes) and duration (ms) of `fn`, sampled every 10 ms. */
async function peak<T>(fn: () => Promise<T>): Promise<{ value: T; rss: number; ms: number }> {
  globalThis.gc?.();
  const start = process.memoryUsage().rss;
  let top = start;
  const timer = setInterval(() => (top = Math.max(top, process.memoryUsage().rss)), 10);
  const t0 = performance.now();
  try {
    const value = await fn();
    top = Math.max(top, process.memoryUsage().rss);
    return { value, rss: top - start, ms: performance.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

/** The harness's read before issue 11: the whole archive entry into one Buffer. */
async function readWhole(provider: DockerSandboxProvider, sb: Sandbox, path: string): Promise<number> {
  const c = provider.docker.getContainer(sb.containerId);
  const stream = (await c.getArchive({ path: `${sb.workdir}/${path}` })) as Readable;
  const { extract } = await import('tar-stream');
  const ex = extract();
  stream.pipe(ex);
  for await (const entry of ex) {
    const parts: Buffer[] = [];
    for await (const chunk of entry) parts.push(chunk as Buffer);
    const b = Buffer.concat(parts);
    stream.destroy();
    return b.length;
  }
  return 0;
}

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

export async function benchHostile(n: number): Promise<string> {
  const provider = new DockerSandboxProvider();
  await provider.ping();
  const out: string[] = [];

  // 1. Creation cost of the disk limit.
  const times: Record<'loop' | 'off', number[]> = { loop: [], off: [] };
  for (let i = 0; i < n; i++)
    for (const mode of ['loop', 'off'] as const) {
      process.env.ENGILOOP_DISK_LIMIT = mode;
      const t0 = performance.now();
      const sb = await provider.create(OPTS);
      await sb.exec('true', { timeoutMs: 10_000, outputCapBytes: 1024 });
      times[mode].push(performance.now() - t0);
      await sb.close();
    }
  delete process.env.ENGILOOP_DISK_LIMIT;
  const [loop, off] = [median(times.loop), median(times.off)];
  out.push(
    `sandbox create + first command, median of ${n}`,
    table(
      ['', 'no disk limit (before)', 'loop ext4 limit (now)', 'now / before'],
      [['create', `${off.toFixed(0)} ms`, `${loop.toFixed(0)} ms`, (loop / off).toFixed(2)]],
    ),
    '',
  );

  // 2–4. Files out of one sandbox.
  const dir = await mkdtemp(join(tmpdir(), 'engiloop-bench-hostile-'));
  const sb = await provider.create(OPTS);
  try {
    await sb.exec('truncate -s 1G one.bin && truncate -s 5G five.bin', {
      timeoutMs: 10_000,
      outputCapBytes: 1024,
    });
    const streamed = await peak(() => sb.copyOut('one.bin', join(dir, 'one.bin'), 2 * 2 ** 30));
    await rm(join(dir, 'one.bin'), { force: true });
    const whole = await peak(() => readWhole(provider, sb, 'one.bin'));
    out.push(
      'a 1 GiB file taken out of a sandbox',
      table(
        ['', 'read whole (before)', 'streamed (now)', 'now / before'],
        [
          ['peak RSS growth', mb(whole.rss), mb(streamed.rss), (streamed.rss / whole.rss).toFixed(3)],
          [
            'time',
            `${whole.ms.toFixed(0)} ms`,
            `${streamed.ms.toFixed(0)} ms`,
            (streamed.ms / whole.ms).toFixed(2),
          ],
        ],
      ),
      '',
    );
    const refused = await peak(() => sb.copyOut('five.bin', join(dir, 'five.bin'), 512 * 2 ** 20));
    const why = refused.value.ok ? 'taken (unexpected)' : refused.value.refusal.message;
    out.push(
      `the 5 GiB sparse deliverable, 512 MiB cap: ${why}`,
      `  refused in ${refused.ms.toFixed(0)} ms, peak RSS growth ${mb(refused.rss)}`,
      '',
    );
    const snap = await peak(() => sb.snapshotTo(join(dir, 'snap.tgz'), 4 * 2 ** 30));
    const bytes = snap.value.bytes;
    out.push(
      `snapshot of a workspace holding 1 GiB + 5 GiB sparse files: ${mb(bytes)} archive (${bytes} bytes) in ${snap.ms.toFixed(0)} ms, peak RSS growth ${mb(snap.rss)}`,
    );
  } finally {
    await sb.close();
    await rm(dir, { recursive: true, force: true });
  }
  return out.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const n = Number(process.argv[2] ?? 5);
  console.error(`hostile: ${n} sandbox creations per mode, then the file transfers…`);
  console.log(await benchHostile(n));
}
