/**
 * `engiloop analyze` and `engiloop compare` on real runs (real nats-server, real Docker, the
 * scripted reference and a defect): summaries are written as episodes end, statistics come from
 * them, and each failure mode cites events that `engiloop events` shows.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SummaryStore } from '../../streams/index.js';
import { recorded, startRecordedProvider } from '../agents/recorded-provider.js';
import { cli } from '../helpers/cli.js';
import { STARTER } from '../helpers/episode.js';
import { startTestNats, type TestNats } from '../helpers/nats.js';

let nats: TestNats;
let home: string;
let suite: string;
let env: Record<string, string>;
let runA: string;
let runB: string;

async function run(path: string, agent: string): Promise<string> {
  const r = await cli(['run', path, '--agent', agent, '--repeat', '2', '--concurrency', '2', '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { runId: string }).runId;
}

beforeAll(async () => {
  nats = await startTestNats();
  home = await mkdtemp(join(tmpdir(), 'engiloop-home-'));
  suite = await mkdtemp(join(tmpdir(), 'engiloop-suite-'));
  for (const t of ['verilog-counter', 'openscad-plate'])
    await cp(join(STARTER, t), join(suite, t), { recursive: true });
  env = { NATS_URL: nats.url, ENGILOOP_HOME: home };
  runA = await run(suite, 'scripted');
  runB = await run(join(suite, 'verilog-counter'), 'scripted:off-by-one');
}, 600_000);
afterAll(async () => {
  await nats?.close();
  await rm(home, { recursive: true, force: true });
  await rm(suite, { recursive: true, force: true });
});

describe('engiloop analyze', () => {
  it('prints the EngiScore with its interval, breakdowns and pass@k from the stored summaries', async () => {
    const r = await cli(['analyze', runA, '--repeat', '2', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const a = JSON.parse(r.stdout);
    expect(a.refolded).toBe(0); // every summary was written when its episode ended
    expect(a.episodes).toBe(4);
    expect(a.overall).toMatchObject({ engiScore: 100, low: 100, high: 100, tasks: 2 });
    expect(a.by.domain.map((x: { key: string }) => x.key)).toEqual(['cad', 'eda']);
    expect(a.by.app.map((x: { key: string }) => x.key)).toEqual(
      expect.arrayContaining(['openscad', 'iverilog']),
    );
    expect(a.repeats.overall).toEqual({ passAtK: 1, passHatK: 1 });
    expect(a.modes).toEqual([]);
    const text = await cli(['analyze', runA], env);
    expect(text.stdout).toMatch(/EngiScore 100\.0 \(95 % CI 100\.0–100\.0/);
    expect(text.stdout).toMatch(/by task type/);
  });

  it('a k larger than the repeats is bad input naming the fix', async () => {
    const r = await cli(['analyze', runA, '--repeat', '3'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /pass@3 needs at least 3 repeats per task; task \S+ has 2 \(run with --repeat 3\)/,
    );
    const u = await cli(['analyze', 'no-such-run'], env);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/neither a run nor an episode/);
  });

  it("an episode's failure modes cite events that `engiloop events` shows", async () => {
    const res = await cli(['results', runB, '--json'], env);
    const id = (JSON.parse(res.stdout) as { results: { episodeId: string }[] }).results[0]!.episodeId;
    const r = await cli(['analyze', id, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const { findings } = JSON.parse(r.stdout) as {
      findings: { mode: string; seqs: number[]; explanation: string }[];
    };
    expect(findings.map((f) => f.mode).sort()).toEqual([
      'constraint.far_off',
      'termination.premature_done',
      'verification.unverified_done',
    ]);
    const ev = await cli(['events', id, '--json'], env);
    const bySeq = new Map(
      ev.stdout
        .trim()
        .split('\n')
        .map((l) => [JSON.parse(l).seq, JSON.parse(l).type]),
    );
    const far = findings.find((f) => f.mode === 'constraint.far_off')!;
    expect(far.seqs.map((s) => bySeq.get(s))).toEqual(['verification.completed']);
    expect(far.explanation).toMatch(/testbench: measured 0\.\d+, expected ≥ 1 — off by/);
    const text = await cli(['analyze', id], env);
    expect(text.stdout).toMatch(/termination\.premature_done\s+agent/);
  });
});

describe('engiloop analyze --trace', () => {
  it('re-verifies at every round (--every-round re-executes with a snapshot each round) and names the rounds', async () => {
    const res = await cli(['results', runB, '--json'], env);
    const id = (JSON.parse(res.stdout) as { results: { episodeId: string }[] }).results[0]!.episodeId;
    const plain = await cli(['analyze', id, '--trace', '--tasks', suite, '--json'], env);
    expect(plain.code, plain.stderr).toBe(0);
    // No snapshot was taken (2 rounds, snapshot_every 10): only the recorded final verdicts.
    expect(
      (JSON.parse(plain.stdout) as { points: { source: string }[] }).points.map((p) => p.source),
    ).toEqual(['final']);
    const r = await cli(['analyze', id, '--trace', '--every-round', '--tasks', suite, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const t = JSON.parse(r.stdout) as {
      points: { round: number; source: string }[];
      criteria: { criterion: string; lastRight: number | null; firstWrong: number | null }[];
    };
    expect(t.points.map((p) => p.source)).toContain('snapshot');
    const tb = t.criteria.find((c) => c.criterion === 'testbench')!;
    expect(tb).toMatchObject({ lastRight: null, firstWrong: t.points[0]!.round });
    const text = await cli(['analyze', id, '--trace', '--tasks', suite], env);
    expect(text.stdout).toMatch(/testbench/);
    const bad = await cli(['analyze', id, runB, '--trace'], env);
    expect(bad.code).toBe(2);
  });
});

describe('engiloop analyze --judge (recorded provider responses from a local HTTP server)', () => {
  it('asks the model, keeps the deterministic findings, rejects what the log does not show, stores the call', async () => {
    await using server = await startRecordedProvider();
    // The recorded answer was made for another episode: it cites rounds 3 and 4, which this one lacks.
    server.queue(recorded('judge-openai-modes'));
    const res = await cli(['results', runB, '--json'], env);
    const id = (JSON.parse(res.stdout) as { results: { episodeId: string }[] }).results[1]!.episodeId;
    const judged = {
      ...env,
      OPENAI_API_KEY: 'sk-test-judge-0123456789',
      OPENAI_BASE_URL: server.openaiBaseURL,
    };
    const r = await cli(['analyze', id, '--judge', 'openai:gpt-4o'], judged);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/termination\.premature_done\s+agent/);
    expect(r.stdout).toMatch(/LLM judge openai:gpt-4o \(\d+ tokens in/);
    expect(r.stdout).toMatch(/rejected termination\.premature_done: already found by the deterministic/);
    expect(r.stdout).toMatch(/rejected feedback\.ignored: .*round/);
    const stored = (await new SummaryStore(nats.js, nats.jsm).forRun(runB)).get(id)!;
    expect(stored.modes.map((f) => f.mode)).not.toContain('feedback.ignored');
    expect(stored.judge).toMatchObject({
      spec: 'openai:gpt-4o',
      added: [],
      call: { provider: 'openai', exchanges: expect.any(String) },
    });
    const bad = await cli(['analyze', id, '--judge', 'openai:gpt-4o'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--judge openai:gpt-4o: .*OPENAI_API_KEY/);
  });
});

describe('engiloop compare', () => {
  it('shows the tasks both runs scored, the flip, the paired tests and the change of failure modes', async () => {
    const r = await cli(['compare', runA, runB, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.tasks).toEqual([
      expect.objectContaining({ taskId: 'verilog-counter', a: 1, passedA: true, passedB: false }),
    ]);
    expect(c.onlyA).toEqual(['openscad-plate']);
    expect(c.broken).toEqual(['verilog-counter']);
    expect(c.fixed).toEqual([]);
    expect(c.score.meanDiff).toBeLessThan(-50);
    expect(c.mcnemar).toMatchObject({ b01: 0, b10: 1, pValue: 1 });
    expect(c.modes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ mode: 'termination.premature_done', a: 0, b: 2, delta: 2 }),
      ]),
    );
    const text = await cli(['compare', runA, runB], env);
    expect(text.stdout).toMatch(/broken 1 \(verilog-counter\); McNemar exact p = 1\.000/);
    const bad = await cli(['compare', runA, 'nope'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no run "nope"/);
  });
});
