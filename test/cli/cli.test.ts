/** The command line, run as a real process against a real nats-server (NATS_URL) and Docker. */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { STARTER } from '../helpers/episode.js';
import { startTestNats, type TestNats } from '../helpers/nats.js';

let nats: TestNats;
let home: string;
let suite: string;
let env: Record<string, string>;

beforeAll(async () => {
  nats = await startTestNats();
  home = await mkdtemp(join(tmpdir(), 'engiloop-home-'));
  suite = await mkdtemp(join(tmpdir(), 'engiloop-suite-'));
  await cp(join(STARTER, 'verilog-counter'), join(suite, 'verilog-counter'), { recursive: true });
  await cp(join(STARTER, 'openscad-plate'), join(suite, 'broken'), { recursive: true });
  const f = join(suite, 'broken', 'task.yaml');
  await writeFile(f, (await readFile(f, 'utf8')).replace('interface: cli', 'interface: telepathy'));
  env = { NATS_URL: nats.url, ENGILOOP_HOME: home };
});
afterAll(async () => {
  await nats?.close();
  await rm(home, { recursive: true, force: true });
  await rm(suite, { recursive: true, force: true });
});

describe('engiloop', () => {
  it('every command has --help', async () => {
    for (const args of [
      [],
      ['run'],
      ['mcp'],
      ['provenance'],
      ['tasks'],
      ['tasks', 'list'],
      ['tasks', 'validate'],
      ['schema'],
      ['events'],
      ['results'],
      ['runs'],
      ['images'],
      ['images', 'build'],
      ['verifiers'],
      ['gc'],
      ['analyze'],
      ['compare'],
      ['fork'],
      ['report'],
      ['view'],
    ]) {
      const r = await cli([...args, '--help']);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toMatch(/Usage: engiloop/);
    }
  });

  it('tasks validate names the bad file and field and exits 2', async () => {
    const r = await cli(['tasks', 'validate', suite], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(suite, 'broken', 'task.yaml'));
    expect(r.stderr).toMatch(/interface: .*"cli"/);
    expect(r.stdout).toMatch(/ok\s+verilog-counter/);
  });

  it('schema prints a JSON Schema', async () => {
    const r = await cli(['schema']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).properties.domain.enum).toContain('eda');
  });

  it('run skips the malformed task, runs the rest, and the run is found again by its id', async () => {
    const r = await cli(['run', suite, '--json'], env);
    expect(r.stderr).toMatch(/skipping invalid task: .*broken/);
    expect(r.code).toBe(2); // bad input in the suite, even though the valid task ran
    const rec = JSON.parse(r.stdout) as {
      runId: string;
      results: { episodeId: string; taskId: string; status: string; score: number }[];
      summary: { engiScore: number };
    };
    expect(rec.results).toHaveLength(1);
    expect(rec.results[0]).toMatchObject({ taskId: 'verilog-counter', status: 'done', score: 1 });
    expect(rec.summary.engiScore).toBe(100);
    expect(r.stderr).toMatch(/\[verilog-counter\] (acting|observing|deciding)\s+round \d+\/100/);
    expect(r.stderr).toMatch(/EngiScore: 100\.0/);

    const res = await cli(['results', rec.runId], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/verilog-counter\s+scripted\s+done\s+1\.000/);
    const ev = await cli(['events', rec.results[0]!.episodeId], env);
    expect(ev.code).toBe(0);
    for (const t of [
      'episode.started',
      'sandbox.provisioned',
      'agent.decided',
      'action.executed',
      'verification.completed',
      'episode.ended',
    ])
      expect(ev.stdout).toContain(t);
    const runs = await cli(['runs'], env);
    expect(runs.stdout).toContain(rec.runId);
  });

  it('Ctrl-C stops the run, records infra_error (not a score) and removes the containers', async () => {
    const dir = join(suite, '..', `${suite.split('/').pop()}-slow`);
    await cp(join(STARTER, 'verilog-counter'), join(dir, 'slow'), { recursive: true });
    const f = join(dir, 'slow', 'task.yaml');
    const yaml = await readFile(f, 'utf8');
    await writeFile(
      f,
      yaml.replace(/^reference:[\s\S]*$/m, 'reference:\n  - { type: shell, command: "sleep 120" }\n'),
    );
    let sent = false;
    const r = await cli(['run', dir], env, {
      onStderr: (child, err) => {
        if (!sent && /\[verilog-counter\] acting/.test(err)) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    });
    await rm(dir, { recursive: true, force: true });
    expect(sent).toBe(true);
    expect(r.stderr).toMatch(/interrupted: stopping episodes/);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/verilog-counter\s+scripted\s+infra_error\s+—/);
    expect(r.stdout).toMatch(/ABORTED/);
    const runId = /run (r[0-9a-z]+):/.exec(r.stderr)![1]!;
    const left = await new Docker().listContainers({
      all: true,
      filters: { label: [`io.engiloop.run=${runId}`] },
    });
    expect(left).toEqual([]);
  });

  it('--history-window sets how many rounds the agent sees, recorded with the task', async () => {
    const r = await cli(['run', join(STARTER, 'verilog-counter'), '--history-window', '1', '--json'], env);
    expect(r.code).toBe(0);
    const id = (JSON.parse(r.stdout) as { results: { episodeId: string }[] }).results[0]!.episodeId;
    const ev = await cli(['events', id, '--json'], env);
    const started = JSON.parse(ev.stdout.split('\n')[0]!) as { task: { history_window: number } };
    expect(started.task.history_window).toBe(1);
    const bad = await cli(['run', join(STARTER, 'verilog-counter'), '--history-window', 'lots'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/history-window/);
  }, 60_000);

  it('bad input exits 2 with a message naming the fix', async () => {
    const a = await cli(['run', join(STARTER, 'verilog-counter'), '--agent', 'oracle'], env);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/unknown agent "oracle"/);
    const b = await cli(['run', join(suite, 'nowhere')], env);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/no such folder/);
    const c = await cli(['run', join(STARTER, 'verilog-counter'), '--agent', 'scripted:nope'], env);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/has no defect or alternative "nope" \(has: ignores-enable, off-by-one\)/);
    const d = await cli(['results', 'r-missing'], env);
    expect(d.code).toBe(2);
  });
});
