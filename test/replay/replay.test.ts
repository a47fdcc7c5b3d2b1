/**
 * Deterministic replay: committed episode logs (v1, v2 and v3) refold to their recorded states, each
 * under the machine rules it was written with; an altered log fails with a divergence naming the
 * round (a changed result, or — machine 2 — a rule broken, such as a skipped snapshot); `--execute` re-runs an episode in a fresh
 * sandbox and compares every observation.
 */
import { readdir, readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../actors/agents/index.js';
import { normalizer } from '../../actors/episode/index.js';
import {
  buildTimeline,
  compareLogs,
  isReplayDivergence,
  readEventsFile,
  replayExecute,
  ReplayDivergenceError,
} from '../../actors/replay/index.js';
import { decodeEvent, encodeEvent, EVENT_VERSION, type EpisodeEvent } from '../../streams/index.js';
import { episodeMachine, fold, ownState, stateName, type EpisodeSnapshot } from '../../machines/index.js';
import { snapshotDigest } from '../../actors/episode/index.js';
import { cli } from '../helpers/cli.js';
import { failed, machineTask, ok, playEpisode, sh } from '../helpers/machine-log.js';
import { episodeKit, starter, type EpisodeKit } from '../helpers/episode.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/episodes');

/** Re-encodes a fixture with one event changed by `edit`, into a temp file. */
async function altered(name: string, edit: (events: EpisodeEvent[]) => void): Promise<string> {
  const lines = (await readFile(join(FIXTURES, name), 'utf8')).trim().split('\n');
  const events = lines.map((l) => decodeEvent(Buffer.from(l, 'base64')));
  edit(events);
  const dir = await mkdtemp(join(tmpdir(), 'engiloop-fx-'));
  const file = join(dir, name);
  await writeFile(file, events.map((e) => Buffer.from(encodeEvent(e)).toString('base64')).join('\n') + '\n');
  return file;
}

/** The error replaying `file` throws (undefined when it replays). */
async function divergenceOf(file: string): Promise<unknown> {
  try {
    buildTimeline(await readEventsFile(file));
  } catch (e) {
    return e;
  }
  return undefined;
}

const stdoutOf = (events: EpisodeEvent[], round: number) => {
  const e = events.find((x) => x.type === 'action.executed' && x.round === round);
  if (e?.type !== 'action.executed') throw new Error(`no action in round ${round}`);
  return e;
};

describe('fold-mode replay of committed logs', () => {
  it('every fixture refolds to its recorded states', async () => {
    const files = (await readdir(FIXTURES)).filter((f) => f.endsWith('.b64'));
    expect(files.filter((f) => f.includes('.v1.')).length).toBeGreaterThanOrEqual(3);
    expect(files.filter((f) => f.includes('.v2.')).length).toBeGreaterThanOrEqual(2);
    expect(files.filter((f) => f.includes('.v3.')).length).toBeGreaterThanOrEqual(2);
    for (const f of files) {
      const events = await readEventsFile(join(FIXTURES, f));
      const tl = buildTimeline(events);
      expect(tl.final.status, f).toBe('done');
      const decisions = events.filter((e) => e.type === 'agent.decided').length;
      // v2 and v3 logs carry a digest per decision plus the final one; v1 logs only the final one.
      expect(tl.checked, f).toBe(f.includes('.v1.') ? 1 : decisions + 1);
    }
  });

  it('a v1 log is upcast: every event comes out at the current version', async () => {
    const events = await readEventsFile(join(FIXTURES, 'openscad-plate.v1.b64'));
    expect(events.every((e) => e.v === EVENT_VERSION)).toBe(true);
    for (const e of events) if (e.type === 'agent.decided') expect(e.stateDigest).toBeNull();
  });

  it('an altered v2 log fails with a divergence naming the round', async () => {
    const file = await altered('openscad-plate.v2.b64', (es) => {
      stdoutOf(es, 2).result.stderr += 'tampered\n';
    });
    const caught = await divergenceOf(file);
    expect(isReplayDivergence(caught)).toBe(true);
    expect((caught as ReplayDivergenceError).round).toBe(2);
    expect((caught as Error).message).toMatch(/diverged in round 2/);
    const r = await cli(['replay', '--file', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/replay diverged in round 2/);
    await rm(join(file, '..'), { recursive: true, force: true });
  });

  it('a v3 log (machine 2) whose due snapshot was left out fails replay naming the round', async () => {
    const file = await altered('openscad-plate.v3.b64', (es) => {
      const i = es.findIndex((e) => e.type === 'workspace.snapshotted' && e.round === 2);
      expect(i).toBeGreaterThan(0);
      es.splice(i, 1);
    });
    const caught = await divergenceOf(file);
    expect(isReplayDivergence(caught)).toBe(true);
    expect((caught as ReplayDivergenceError).round).toBe(2);
    expect((caught as ReplayDivergenceError).kind).toBe('rejected');
    expect((caught as Error).message).toMatch(
      /replay diverged in round 2: event \d+ \(observation\.recorded in state snapshotting\) breaks the machine's rules; it expected an interval snapshot \(round 2\)/,
    );
    const r = await cli(['replay', '--file', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/replay diverged in round 2/);
    await rm(join(file, '..'), { recursive: true, force: true });
  });

  it('an altered v3 log whose recorded result changed is caught by the next digest', async () => {
    const file = await altered('openscad-plate.v3.b64', (es) => {
      stdoutOf(es, 1).result.stdout += 'tampered\n';
    });
    await expect(readEventsFile(file).then(buildTimeline)).rejects.toMatchObject({
      round: 1,
      kind: 'digest',
    });
    await rm(join(file, '..'), { recursive: true, force: true });
  });

  it('an altered v1 log is caught by its final digest', async () => {
    const file = await altered('verilog-counter--off-by-one.v1.b64', (es) => {
      stdoutOf(es, 1).result.exitCode = 7;
    });
    await expect(readEventsFile(file).then(buildTimeline)).rejects.toBeInstanceOf(ReplayDivergenceError);
    await rm(join(file, '..'), { recursive: true, force: true });
  });

  it('the CLI steps to a round and prints JSON for tools', async () => {
    const file = join(FIXTURES, 'openscad-plate.v2.b64');
    const r = await cli(['replay', '--file', file, '--round', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/round 2 of 3/);
    expect(r.stdout).toMatch(/openscad -o part\.stl part\.scad/);
    expect(r.stdout).toMatch(/state digest: matches/);
    const j = await cli(['replay', '--file', file, '--json']);
    const parsed = JSON.parse(j.stdout) as { rounds: unknown[]; checked: number; finalState: string };
    expect(parsed.rounds).toHaveLength(3);
    expect(parsed.checked).toBe(4);
    expect(parsed.finalState).toBe('done');
  });
});

describe('the fold re-checks the rules the runner used to hold', () => {
  /** Writes `events` as a log file and replays it through the CLI and `buildTimeline`. */
  async function replayOf(events: EpisodeEvent[]) {
    const dir = await mkdtemp(join(tmpdir(), 'engiloop-rules-'));
    const file = join(dir, 'log.b64');
    await writeFile(
      file,
      events.map((e) => Buffer.from(encodeEvent(e)).toString('base64')).join('\n') + '\n',
    );
    const caught = await divergenceOf(file);
    const r = await cli(['replay', '--file', file]);
    await rm(dir, { recursive: true, force: true });
    return { caught: caught as ReplayDivergenceError | undefined, cli: r };
  }

  it('folding a committed log recorded by a live run gives the digests that run recorded, and a JSON round trip of the state is the same state', async () => {
    // The digests were computed by the runner in another process when the fixture was recorded
    // (test/fixtures/episodes/record.ts); here only the fold computes them.
    const events = await readEventsFile(join(FIXTURES, 'openscad-plate.v3.b64'));
    const recorded = events.flatMap((e, i) =>
      e.type === 'agent.decided'
        ? [{ i, digest: e.stateDigest }]
        : e.type === 'episode.ended'
          ? [{ i, digest: e.snapshotDigest }]
          : [],
    );
    expect(recorded).toHaveLength(4);
    for (const { i, digest } of recorded)
      expect(snapshotDigest(fold(events.slice(0, i))), `event ${i}`).toBe(digest);
    const final = fold(events) as EpisodeSnapshot;
    const restored = episodeMachine.resolveState(
      JSON.parse(JSON.stringify(episodeMachine.getPersistedSnapshot(final))),
    );
    expect(ownState(restored)).toEqual(ownState(final));
    expect(stateName(restored)).toBe('done');
  });

  it('an action recorded as run after a failed GUI action fails replay naming the round', async () => {
    const task = machineTask({
      interface: 'gui',
      environment: {
        sandboxes: { main: { image: 'engiloop/desktop:latest', desktop: { app: 'librecad' } } },
      },
      limits: { max_rounds: 4 },
    });
    const { events } = playEpisode(task, {
      decide: (n) => (n <= 2 ? { kind: 'act', actions: [sh('a'), sh('b')] } : { kind: 'done' }),
      result: (round, i) => (round === 2 && i === 0 ? failed : ok),
    });
    expect((await replayOf(events)).caught).toBeUndefined();
    const altered = events.map((e) =>
      e.type === 'action.executed' && e.round === 2 && e.index === 1 ? { ...e, result: ok } : e,
    );
    const { caught, cli: r } = await replayOf(altered);
    expect(isReplayDivergence(caught)).toBe(true);
    expect(caught!.round).toBe(2);
    expect(caught!.message).toMatch(
      /diverged in round 2: .*action\.executed in state acting.*expected the outcome of skip \(round 2, action 2\)/,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/replay diverged in round 2/);
  });

  it('a restore past the lost-sandbox budget fails replay naming the round', async () => {
    let n = 0;
    const lost = (attempt: number) => ({
      type: 'sandbox.lost' as const,
      error: { code: 'CONTAINER_GONE', message: 'gone' },
      during: 'acting',
      attempt,
    });
    const { events } = playEpisode(machineTask({ limits: { sandbox_retries: 1 } }), {
      decide: (k) => (k <= 3 ? { kind: 'act', actions: [sh()] } : { kind: 'done' }),
      // A loss in round 1 (restored), and one in round 3 (past the budget: infra_error).
      fault: (e, _k, snap) =>
        e.type === 'execute' && (e.round === 1 || e.round === 3) && e.round > n
          ? ((n = e.round), lost(snap.context.losses + 1))
          : null,
    });
    expect(events.at(-1)).toMatchObject({ type: 'episode.ended', status: 'infra_error' });
    expect((await replayOf(events)).caught).toBeUndefined();
    // The same log, with the runner going on past the budget: restored, then done.
    const cut = events.findIndex((e) => e.type === 'sandbox.lost' && e.attempt === 2);
    const resumed = events.find((e) => e.type === 'episode.resumed')!;
    const altered = [...events.slice(0, cut + 1), { ...resumed, at: events[cut]!.at + 5 }];
    const { caught, cli: r } = await replayOf(altered);
    expect(caught!.round).toBe(3);
    expect(caught!.message).toMatch(/diverged in round 3: .*episode\.resumed in state infra_error/);
    expect(r.code).toBe(1);
  });
});

describe('replay --execute', () => {
  let kit: EpisodeKit;
  beforeAll(async () => {
    kit = await episodeKit();
  });
  afterAll(async () => {
    await kit?.close();
  });

  it('re-executes an episode in a fresh sandbox: identical after blanking volatile parts', async () => {
    const lt = await starter('openscad-plate');
    const original = await kit.run(lt, createAgent('scripted', lt));
    const events = await kit.log.read(original.episodeId);
    const report = await replayExecute(events, lt, kit.deps, {
      read: (id) => kit.log.read(id),
      episodeId: `${original.episodeId}-replay`,
      runId: kit.runId,
      artifactsDir: join(kit.dir, 'replay'),
    });
    expect(report.firstDivergence, JSON.stringify(report.firstDivergence)).toBeNull();
    expect(report.verdict).toBe('identical');
    expect(report.roundsCompared).toBe(3);
    expect(report.replay.score).toBe(original.score);

    // The same replay against a record whose round-2 output was different diverges there.
    const tampered = events.map((e) =>
      e.type === 'action.executed' && e.round === 2 ? { ...e, result: { ...e.result, exitCode: 1 } } : e,
    );
    const replayed = await kit.log.read(`${original.episodeId}-replay`);
    const cmp = compareLogs(tampered, replayed);
    expect(cmp.divergence?.round).toBe(2);
    expect(cmp.divergence?.diff).toMatch(/- \[exit 1/);
  });

  it('re-verifies a sealed verifier with the nonce the original recorded', async () => {
    const lt = await starter('verilog-counter');
    const original = await kit.run(lt, createAgent('scripted:off-by-one', lt));
    const events = await kit.log.read(original.episodeId);
    const seal = (es: EpisodeEvent[]) =>
      es
        .flatMap((e) => (e.type === 'verification.completed' ? e.verdicts : []))
        .find((v) => v.criterion === 'testbench');
    const first = seal(events);
    expect(first?.seal).toMatch(/^[0-9a-f]{16}$/);
    const report = await replayExecute(events, lt, kit.deps, {
      read: (id) => kit.log.read(id),
      episodeId: `${original.episodeId}-replay`,
      runId: kit.runId,
      artifactsDir: join(kit.dir, 'replay-sealed'),
    });
    expect(report.verdict).toBe('identical');
    const again = seal(await kit.log.read(`${original.episodeId}-replay`));
    expect(again?.seal).toBe(first!.seal);
    expect(again?.reason).toBe(first!.reason);
    // A fresh run of the same design seals with another nonce.
    const fresh = await kit.run(lt, createAgent('scripted:off-by-one', lt));
    expect(seal(await kit.log.read(fresh.episodeId))?.seal).not.toBe(first!.seal);
  });

  it('normalises durations, dates and ids, and the task’s own volatile patterns', () => {
    const n = normalizer(['seed=\\d+']);
    expect(n('[exit 0, 14 ms] Nov 30 06:13 build 0123456789ab seed=42')).toBe(
      n('[exit 0, 9 ms] Dec  1 17:02 build ba9876543210 seed=7'),
    );
    expect(n('volume 120')).not.toBe(n('volume 121'));
  });
});
