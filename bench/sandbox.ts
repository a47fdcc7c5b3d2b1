/**
 * Per-command overhead of the persistent shell against one `docker exec` per command, both running
 * `true` in the same hardened `engiloop/cli:latest` sandbox.
 *
 * Run directly: `npx tsx bench/sandbox.ts [n]` prints a side-by-side table with the ratio.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { DockerSandboxProvider } from '../actors/sandbox/index.js';
import { execOnce } from '../actors/sandbox/exec-once.js';

/** One measured variant. */
export interface BenchRow {
  name: string;
  p50Ms: number;
  p95Ms: number;
  n: number;
}

const WARMUP = 5;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[i] ?? Number.NaN) * 100) / 100;
}

async function measure(name: string, n: number, once: () => Promise<unknown>): Promise<BenchRow> {
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await once();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { name, p50Ms: percentile(times, 50), p95Ms: percentile(times, 95), n };
}

/**
 * Measures `n` runs of `true` through the persistent shell and through a fresh dockerode exec
 * (create, start, wait for the output to end, inspect the exit code) in one sandbox.
 */
export async function benchSandbox(opts: { n: number }): Promise<BenchRow[]> {
  const provider = new DockerSandboxProvider();
  await provider.ping();
  await using sb = await provider.create({
    name: 'bench',
    image: 'engiloop/cli:latest',
    workdir: '/workspace',
    cpus: 1,
    memoryMb: 512,
    pids: 256,
    labels: { 'io.engiloop.bench': 'sandbox' },
  });
  const container = provider.docker.getContainer(sb.containerId);
  const run = { timeoutMs: 10_000, outputCapBytes: 4096 };
  const shell = await measure('persistent shell', opts.n, () => sb.exec('true', run));
  const exec = await measure('docker exec per command', opts.n, () =>
    execOnce(provider.docker, container, ['true'], { user: '1000:1000' }),
  );
  return [shell, exec];
}

/** The rows as a table, with how many times slower each row is than the first (the shell). */
export function formatBench(rows: BenchRow[]): string {
  const base = rows[0];
  const cells = [['variant', 'n', 'p50 ms', 'p95 ms', 'p50 vs shell']];
  for (const r of rows) {
    const ratio = base ? `${(r.p50Ms / base.p50Ms).toFixed(1)}x` : '-';
    cells.push([r.name, String(r.n), r.p50Ms.toFixed(2), r.p95Ms.toFixed(2), ratio]);
  }
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells
    .map((row) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '))
    .join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = Number(process.argv[2] ?? 200);
  console.log(formatBench(await benchSandbox({ n })));
}
