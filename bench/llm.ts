/**
 * LLM agent harness overhead per step, excluding the provider's latency: a local HTTP server answers
 * instantly with a recorded OpenAI tool-call response; each step is what the runner does around a
 * model call — build the request from the task and 15 rounds of history, send it through the SDK
 * and the recording transport, parse the tool call, store the redacted exchanges in the object
 * store and append `agent.decided` (sync_interval: always). The bare HTTP round trip of the same
 * body to the same server is measured separately and subtracted.
 *
 * `node --import tsx bench/llm.ts [steps]` (default 200).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LlmAgent } from '../actors/agents/index.js';
import type { RoundRecord } from '../machines/index.js';
import { BlobStore, EpisodeLog, connectNats, startNatsServer, type EpisodeEvent } from '../streams/index.js';
import { TaskSchema, type Task } from '../tasks/index.js';

const steps = Number(process.argv[2] ?? 200);
const reply = readFileSync(
  new URL('../test/fixtures/providers/openai-tool-call.json', import.meta.url),
  'utf8',
);
const body = JSON.stringify((JSON.parse(reply) as { body: unknown }).body);

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

const task = TaskSchema.parse({
  id: 'bench-llm',
  title: 'bench',
  domain: 'cad',
  type: 'single-software',
  interface: 'cli',
  objective: 'Model an 80 x 50 x 6 mm plate with four 6 mm holes in OpenSCAD and export part.stl. '.repeat(4),
  environment: { sandboxes: { main: { image: 'engiloop/cli:latest' } } },
  deliverables: [{ path: 'part.stl', format: 'stl' }],
  criteria: [{ id: 'f', verifier: 'file.format', deliverable: 'part.stl' }],
  reference: [{ type: 'shell', command: 'true' }],
}) as Task;
const out = Array.from(
  { length: 30 },
  (_, i) => `[build] step ${i}: volume=${(i * 1.37).toFixed(3)} mm3`,
).join('\n');
const history: RoundRecord[] = Array.from({ length: 15 }, (_, i) => {
  const action = {
    type: 'shell' as const,
    command: `openscad -o part${i}.stl part.scad && ls -l part${i}.stl`,
  };
  return {
    round: i + 1,
    observation: `Round ${i + 1}\n${out}`,
    decision: { kind: 'act', actions: [action] },
    results: [
      {
        action,
        result: { stdout: out, stderr: '', exitCode: 0, durationMs: 120, truncated: false, timedOut: false },
      },
    ],
  };
});

const nats = await startNatsServer();
const nc = await connectNats(nats.url);
const blobs = await BlobStore.open(nc);
const log = await EpisodeLog.open(nc);
const writer = log.writer('bench-llm-1');
const agent = new LlmAgent({ provider: 'openai', model: 'gpt-4o', apiKey: 'sk-bench', baseURL: base });
const q = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

// Warm-up (SDK import paths, JIT, stream creation).
for (let i = 0; i < 10; i++) await agent.decide({ task, round: 16, observation: out, history });
await writer.append({ type: 'sandbox.provisioned', sandboxes: {}, v: 2, at: Date.now() } as EpisodeEvent);

const http: number[] = [];
const decide: number[] = [];
const record: number[] = [];
let size = 0;
for (let i = 0; i < steps; i++) {
  if (i % 50 === 0) process.stderr.write(`step ${i}/${steps}\n`);
  const reqBody = JSON.stringify(agent.lastCall?.exchanges.at(-1)?.request.body ?? {});
  size = reqBody.length;
  let t = performance.now();
  await (
    await fetch(`${base}/chat/completions`, {
      method: 'POST',
      body: reqBody,
      headers: { 'content-type': 'application/json' },
    })
  ).text();
  http.push(performance.now() - t);
  t = performance.now();
  const raw = await agent.decide({ task, round: 16, observation: out, history });
  decide.push(performance.now() - t);
  t = performance.now();
  const digest = await blobs.put(Buffer.from(JSON.stringify(agent.lastCall!.exchanges)));
  await writer.append({
    type: 'agent.decided',
    round: 16 + i,
    raw,
    decision: { kind: 'invalid', error: 'bench' },
    latencyMs: 0,
    stateDigest: null,
    call: {
      provider: 'openai',
      model: 'gpt-4o',
      usage: agent.lastCall!.usage,
      costUsd: 0,
      latencyMs: 0,
      retries: 0,
      stopReason: null,
      promptVersion: 1,
      exchanges: digest,
    },
    v: 2,
    at: Date.now(),
  } as EpisodeEvent);
  record.push(performance.now() - t);
}
const f = (x: number) => `${x.toFixed(2)} ms`.padStart(10);
const overhead = decide.map((d, i) => d - http[i]! + record[i]!);
console.log(
  `\n## LLM agent harness overhead per step (request body ${(size / 1024).toFixed(1)} KiB, 15 rounds of history)`,
);
console.log(`${'part'.padEnd(58)}${'p50'.padStart(10)}${'p95'.padStart(10)}`);
for (const [name, xs] of [
  ['bare HTTP round trip, same body, same local server', http],
  ['LlmAgent.decide() (prompt + SDK + recording + parse)', decide],
  ['store exchanges + append agent.decided (fsync)', record],
  ['harness overhead = decide − HTTP + record', overhead],
] as const)
  console.log(`${name.padEnd(58)}${f(q(xs, 0.5))}${f(q(xs, 0.95))}`);
await nc.close();
await nats.stop();
server.close();
