/**
 * Multi-software numbers (issue "Multi-software workflows"):
 *   1. hand-off cost: artifact size against the time to move it between two sandboxes (out of the
 *      producer, into the object store by SHA-256, into the consumer);
 *   2. a full multi-software reference run split by stage (from the event log's timestamps);
 *   3. the overhead of running N sandboxes for one episode (provisioning, and a round that runs
 *      one command in every sandbox).
 * Real nats-server and Docker. `node --import tsx bench/workflows.ts [task dir…]` (default: every
 * task under tasks/workflows, else test/fixtures/tasks/handoff-print).
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedAgent, createAgent } from '../actors/agents/index.js';
import { runEpisode, episodeDeps, type EpisodeDeps } from '../actors/episode/index.js';
import { handoff } from '../actors/episode/handoff.js';
import { newRunId } from '../actors/run/index.js';
import { DockerSandboxProvider } from '../actors/sandbox/index.js';
import type { EpisodeEvent } from '../streams/events.js';
import { BlobStore, connectNats, EpisodeLog, startNatsServer } from '../streams/index.js';
import { loadTask, TaskSchema, type LoadedTask, type Task } from '../tasks/index.js';

const ROOT = join(import.meta.dirname, '..');
const say = (s: string) => process.stderr.write(`${s}\n`);
const ms = (x: number) => `${Math.round(x).toLocaleString('en-US')} ms`;

const nats = await startNatsServer();
const nc = await connectNats(nats.url);
const log = await EpisodeLog.open(nc);
const blobs = await BlobStore.open(nc);
const provider = new DockerSandboxProvider();
const deps: EpisodeDeps = episodeDeps({ log, blobs, provider });
const runId = newRunId();
const dir = await mkdtemp(join(tmpdir(), 'engiloop-bench-wf-'));
let n = 0;

function syntheticTask(sandboxes: number): LoadedTask {
  const names = Array.from({ length: sandboxes }, (_, i) => `app${i + 1}`);
  const task = TaskSchema.parse({
    id: `bench-n${sandboxes}`,
    title: 'bench',
    domain: 'cad',
    type: sandboxes > 1 ? 'multi-software' : 'single-software',
    interface: 'cli',
    objective: 'bench',
    limits: { max_rounds: 10, snapshot_every: 0 },
    environment: { sandboxes: Object.fromEntries(names.map((s) => [s, { image: 'engiloop/cli:latest' }])) },
    deliverables: [{ path: 'out.txt', format: 'txt', sandbox: names[0] }],
    criteria: [{ id: 'f', verifier: 'file.format', deliverable: 'out.txt' }],
    reference: [
      names.map((s) => ({ type: 'shell', sandbox: s, command: `echo ${s} > out.txt` })),
      names.map((s) => ({ type: 'shell', sandbox: s, command: 'wc -c out.txt' })),
    ],
  }) as Task;
  return { task, dir: ROOT, defects: {}, alternatives: {} } as unknown as LoadedTask;
}

async function play(lt: LoadedTask, agent = createAgent('scripted', lt)): Promise<EpisodeEvent[]> {
  const id = `${runId}-wf-${++n}`;
  await runEpisode(lt, deps, { episodeId: id, runId, agent, artifactsDir: join(dir, id) });
  return log.read(id);
}

// 1. Hand-off cost by size.
say('hand-off cost…');
const lt2 = syntheticTask(2);
const labels = { 'io.engiloop.run': runId };
const mk = (name: string) =>
  provider.create({
    name,
    image: 'engiloop/cli:latest',
    workdir: '/workspace',
    cpus: 1,
    memoryMb: 1024,
    pids: 256,
    labels,
  });
const [a, b] = await Promise.all([mk('app1'), mk('app2')]);
const scope = {
  lt: lt2,
  deps,
  stored: { bytes: 0, digests: new Set<string>() },
  opts: {
    episodeId: 'bench',
    runId,
    agent: new ScriptedAgent('x', [{ type: 'shell', command: 'true' }]),
    artifactsDir: dir,
  },
  sandboxes: new Map([
    ['app1', a],
    ['app2', b],
  ]),
  span: undefined as never,
};
const rows: string[] = [];
for (const kib of [1, 64, 1024, 10 * 1024, 50 * 1024]) {
  await a.exec(`head -c ${kib * 1024} /dev/urandom > blob.bin`, { timeoutMs: 60_000, outputCapBytes: 1024 });
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const h = await handoff(scope, {
      type: 'handoff',
      from: 'app1',
      path: 'blob.bin',
      to: 'app2',
      dest: `copy${i}.bin`,
    });
    if (!h.info) throw new Error(h.result.stderr);
    times.push(performance.now() - t);
  }
  const med = times.sort((x, y) => x - y)[1]!;
  rows.push(
    `${`${kib.toLocaleString('en-US')} KiB`.padStart(10)}  ${ms(med).padStart(10)}  ${(kib / 1024 / (med / 1000)).toFixed(1).padStart(8)} MiB/s`,
  );
}
await Promise.all([a.close(), b.close()]);
console.log('\n## Hand-off cost (producer → object store by SHA-256 → consumer; median of 3)');
console.log(`${'size'.padStart(10)}  ${'time'.padStart(10)}  ${'rate'.padStart(14)}`);
for (const r of rows) console.log(r);

// 2. Reference runs split by stage.
const wfDir = join(ROOT, 'tasks/workflows');
const taskDirs = process.argv.slice(2).length
  ? process.argv.slice(2)
  : existsSync(wfDir)
    ? readdirSync(wfDir).map((d) => join(wfDir, d))
    : [join(ROOT, 'test/fixtures/tasks/handoff-print')];
console.log('\n## Multi-software reference runs, split by stage (from the event timestamps)');
for (const d of taskDirs) {
  say(`reference of ${d}…`);
  const lt = await loadTask(d);
  const es = await play(lt);
  const t0 = es[0]!.at;
  const prov = es.find((e) => e.type === 'sandbox.provisioned')!.at - t0;
  const parts = [`provision ${ms(prov)}`];
  let last = es.find((e) => e.type === 'sandbox.provisioned')!.at;
  for (const e of es) {
    if (e.type === 'stage.checked') {
      parts.push(`→ ${e.stage} ${ms(e.at - last)}`);
      last = e.at;
    }
    if (e.type === 'artifact.handed_off')
      parts.push(
        `(hand-off ${e.from.sandbox}→${e.to.sandbox} ${(e.bytes / 1024).toFixed(0)} KiB ${ms(e.durationMs)})`,
      );
  }
  const end = es.find((e) => e.type === 'verification.completed');
  const total = es.at(-1)!.at - t0;
  const score = end?.type === 'verification.completed' ? end.score.toFixed(3) : '—';
  if (end) parts.push(`→ final verification ${ms(end.at - last)}`);
  console.log(`${lt.task.id}: ${ms(total)} total, score ${score}\n   ${parts.join(' ')}`);
}

// 3. N sandboxes for one episode.
console.log('\n## N sandboxes for one episode (2 rounds, one command per sandbox per round; median of 3)');
console.log(
  `${'N'.padStart(3)}  ${'provision'.padStart(10)}  ${'round'.padStart(10)}  ${'episode'.padStart(10)}`,
);
for (const count of [1, 2, 4]) {
  say(`${count} sandbox(es)…`);
  const res: { prov: number; round: number; total: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const es = await play(syntheticTask(count));
    const t0 = es[0]!.at;
    const prov = es.find((e) => e.type === 'sandbox.provisioned')!.at - t0;
    const acts = es.filter((e) => e.type === 'action.executed' && e.round === 2);
    const firstStart = es.find((e) => e.type === 'action.started' && e.round === 2)!.at;
    res.push({ prov, round: acts.at(-1)!.at - firstStart, total: es.at(-1)!.at - t0 });
  }
  const med = (f: (r: (typeof res)[number]) => number) => res.map(f).sort((x, y) => x - y)[1]!;
  console.log(
    `${String(count).padStart(3)}  ${ms(med((r) => r.prov)).padStart(10)}  ${ms(med((r) => r.round)).padStart(10)}  ${ms(med((r) => r.total)).padStart(10)}`,
  );
}

await provider.removeOrphans({ labels, includeOwn: true }).catch(() => 0);
await nc.close();
await nats.stop();
await rm(dir, { recursive: true, force: true });
