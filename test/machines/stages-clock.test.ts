/** The machine's stage rule (a halting stage check ends the episode) and clock rule (downtime). */
import { describe, expect, it } from 'vitest';
import { fold, stateName, step } from '../../machines/index.js';
import type { EpisodeEvent, EventDraft } from '../../streams/events.js';
import { TaskSchema, type Task } from '../../tasks/index.js';

const t = TaskSchema.parse({
  id: 't1',
  title: 'T',
  domain: 'cad',
  type: 'single-software',
  interface: 'cli',
  objective: 'make part.stl',
  environment: { sandboxes: { main: { image: 'engiloop/cli:latest' } } },
  limits: { max_rounds: 5, wall_clock_sec: 10 },
  deliverables: [{ path: 'part.stl', format: 'stl', stage: 'model' }],
  stages: [{ name: 'model', halt_on_fail: true }],
  criteria: [{ id: 'present', verifier: 'file.format', deliverable: 'part.stl' }],
  reference: [{ type: 'shell', command: 'true' }],
}) as Task;

let clock = 0;
const ev = (d: EventDraft, dt = 10): EpisodeEvent => ({ ...d, v: 2, at: (clock += dt) }) as EpisodeEvent;
const ok = { stdout: '', stderr: '', exitCode: 0, durationMs: 1, truncated: false, timedOut: false };
const sh = { type: 'shell' as const, command: 'true' };

/** Round 1 played up to the observation of round 2 being due. */
function firstRound(): EpisodeEvent[] {
  clock = 1_000;
  return [
    ev({ type: 'episode.started', episodeId: 'e', runId: 'r', task: t, agent: 'x' }),
    ev({ type: 'sandbox.provisioned', sandboxes: { main: 'c' } }),
    ev({ type: 'observation.recorded', round: 1, text: 'o' }),
    ev({
      type: 'agent.decided',
      round: 1,
      raw: {},
      decision: { kind: 'act', actions: [sh] },
      latencyMs: 1,
      stateDigest: null,
    }),
    ev({ type: 'action.executed', round: 1, index: 0, action: sh, result: ok }),
  ];
}

const stage = (passed: boolean, halt: boolean): EventDraft => ({
  type: 'stage.checked',
  stage: 'model',
  round: 1,
  artifacts: { 'part.stl': 'ab' },
  verdicts: [
    {
      criterion: 'present',
      verifier: 'file.format',
      role: 'check',
      passed,
      score: passed ? 1 : 0,
      reason: passed ? 'ok' : 'not an STL',
    },
  ],
  score: passed ? 1 : 0,
  passed,
  halt,
});

describe('stage rule', () => {
  it('a halting stage check sends the episode to verification, then failed, naming the stage', () => {
    const events = [...firstRound(), ev(stage(false, true))];
    const last = step(fold(events.slice(0, -1)), events.at(-1)!);
    expect(stateName(last.snapshot)).toBe('verifying');
    expect(last.effects).toEqual(['verify']);
    expect(last.snapshot.context.failReason).toMatch(/stage "model" failed: present: not an STL/);
    const end = fold([
      ...events,
      ev({ type: 'verification.completed', verdicts: [], score: 0, passed: false, artifacts: {} }),
    ]);
    expect(end.status).toBe('done');
    expect(stateName(end)).toBe('failed');
  });

  it('a passing (or non-halting) stage check, a snapshot and a sandbox loss change nothing', () => {
    const base = fold(firstRound());
    for (const d of [
      stage(true, false),
      stage(false, false),
      {
        type: 'workspace.snapshotted',
        round: 1,
        reason: 'interval',
        sandboxes: {},
        durationMs: 1,
      } as EventDraft,
      {
        type: 'sandbox.lost',
        error: { code: 'CONTAINER_GONE', message: 'x' },
        during: 'observing',
        attempt: 1,
      } as EventDraft,
    ]) {
      const r = step(base, ev(d));
      expect(stateName(r.snapshot)).toBe('observing');
      expect(r.effects).toEqual([]);
      expect(r.snapshot.context).toEqual(base.context);
    }
  });
});

describe('clock rule', () => {
  const resumed = (downtimeMs?: number): EventDraft => ({
    type: 'episode.resumed',
    worker: 'w',
    state: 'observing',
    sandboxes: {},
    replayed: 1,
    divergences: [],
    interrupted: null,
    ...(downtimeMs === undefined ? {} : { downtimeMs }),
  });
  const observe = (): EventDraft => ({ type: 'observation.recorded', round: 2, text: 'o' });

  it('downtime recorded on resume does not count against the wall-clock cap', () => {
    // 60 s after the start, past the 10 s cap, but 59 s of it were downtime.
    const events = [...firstRound(), ev(resumed(59_000), 59_000), ev(observe())];
    const snap = fold(events);
    expect(stateName(snap)).toBe('deciding');
    expect(snap.context.startedAt).toBe(1_010 + 59_000);
  });

  it('without downtime (or from an older log) the same gap hits the cap', () => {
    for (const r of [resumed(), resumed(0)]) {
      const snap = fold([...firstRound(), ev(r, 59_000), ev(observe())]);
      expect(stateName(snap)).toBe('verifying');
      expect(snap.context.limitReason).toBe('wall_clock');
    }
  });
});
