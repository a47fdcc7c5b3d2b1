import { describe, expect, it } from 'vitest';
import { fold, initialSnapshot, persist, stateName, step, type Effect } from '../../machines/index.js';
import type { EpisodeEvent, EventDraft } from '../../streams/events.js';
import { TaskSchema, type Task } from '../../tasks/index.js';

function task(over: Partial<{ max_rounds: number; wall_clock_sec: number }> = {}): Task {
  const t = TaskSchema.parse({
    id: 't1',
    title: 'T',
    domain: 'cad',
    type: 'single-software',
    interface: 'cli',
    objective: 'make part.stl',
    environment: { sandboxes: { main: { image: 'engiloop/cli:latest' } } },
    limits: { max_rounds: over.max_rounds ?? 3, wall_clock_sec: over.wall_clock_sec ?? 100 },
    deliverables: [{ path: 'part.stl', format: 'stl' }],
    criteria: [{ id: 'present', verifier: 'file.format', deliverable: 'part.stl' }],
    reference: [{ type: 'shell', command: 'true' }],
  });
  return { ...t, limits: { ...t.limits, max_rounds: t.limits.max_rounds! } };
}

let clock = 1000;
const ev = (d: EventDraft): EpisodeEvent => ({ ...d, v: 1, at: (clock += 10) }) as EpisodeEvent;
const ok = { stdout: '', stderr: '', exitCode: 0, durationMs: 1, truncated: false, timedOut: false };
const sh = { type: 'shell' as const, command: 'true' };

/** Drives the machine with the events a runner would append, collecting effects. */
function drive(events: EpisodeEvent[]) {
  let snap = initialSnapshot();
  const effects: Effect[] = [];
  for (const e of events) {
    const r = step(snap, e);
    snap = r.snapshot;
    effects.push(...r.effects);
  }
  return { snap, effects };
}

const start = (t: Task) =>
  ev({ type: 'episode.started', episodeId: 'e1', runId: 'r1', task: t, agent: 'scripted' });
const verified = (score: number) =>
  ev({ type: 'verification.completed', verdicts: [], score, passed: score === 1, artifacts: {} });

describe('episode machine', () => {
  it('runs observe → decide → act → observe → decide(done) → verify → done', () => {
    clock = 1000;
    const { snap, effects } = drive([
      start(task()),
      ev({ type: 'sandbox.provisioned', sandboxes: { main: 'c1' } }),
      ev({ type: 'observation.recorded', round: 1, text: 'objective' }),
      ev({
        type: 'agent.decided',
        round: 1,
        raw: {},
        decision: { kind: 'act', actions: [sh, sh] },
        latencyMs: 1,
        stateDigest: null,
      }),
      ev({ type: 'action.executed', round: 1, index: 0, action: sh, result: ok }),
      ev({ type: 'action.executed', round: 1, index: 1, action: sh, result: ok }),
      ev({ type: 'observation.recorded', round: 2, text: 'results' }),
      ev({
        type: 'agent.decided',
        round: 2,
        raw: {},
        decision: { kind: 'done' },
        latencyMs: 1,
        stateDigest: null,
      }),
      verified(1),
    ]);
    expect(effects).toEqual([
      'provision',
      'observe',
      'decide',
      'execute',
      'observe',
      'decide',
      'verify',
      'finish',
    ]);
    expect(stateName(snap)).toBe('done');
    expect(snap.status).toBe('done');
    expect(snap.context.round).toBe(2);
    expect(snap.context.history[0]!.results).toHaveLength(2);
    expect(snap.context.verification?.score).toBe(1);
  });

  it('FAIL still verifies, then ends failed', () => {
    clock = 1000;
    const { snap, effects } = drive([
      start(task()),
      ev({ type: 'sandbox.provisioned', sandboxes: {} }),
      ev({ type: 'observation.recorded', round: 1, text: 'o' }),
      ev({
        type: 'agent.decided',
        round: 1,
        raw: {},
        decision: { kind: 'fail', reason: 'cannot' },
        latencyMs: 1,
        stateDigest: null,
      }),
      verified(0),
    ]);
    expect(effects.slice(-2)).toEqual(['verify', 'finish']);
    expect(stateName(snap)).toBe('failed');
    expect(snap.context.failReason).toBe('cannot');
  });

  it('ends at the round limit after verifying; the verified score is kept', () => {
    clock = 1000;
    const events = [start(task({ max_rounds: 2 })), ev({ type: 'sandbox.provisioned', sandboxes: {} })];
    for (let r = 1; r <= 2; r++) {
      events.push(ev({ type: 'observation.recorded', round: r, text: 'o' }));
      events.push(
        ev({
          type: 'agent.decided',
          round: r,
          raw: {},
          decision: { kind: 'act', actions: [sh] },
          latencyMs: 1,
          stateDigest: null,
        }),
      );
      events.push(ev({ type: 'action.executed', round: r, index: 0, action: sh, result: ok }));
    }
    const mid = drive(events);
    expect(stateName(mid.snap)).toBe('verifying');
    expect(mid.effects.filter((e) => e === 'decide')).toHaveLength(2);
    const { snap } = drive([...events, verified(1)]);
    expect(stateName(snap)).toBe('limit');
    expect(snap.context.limitReason).toBe('max_rounds');
    expect(snap.context.verification?.score).toBe(1);
  });

  it('an invalid output spends a round and asks for a new observation', () => {
    clock = 1000;
    const { snap, effects } = drive([
      start(task()),
      ev({ type: 'sandbox.provisioned', sandboxes: {} }),
      ev({ type: 'observation.recorded', round: 1, text: 'o' }),
      ev({
        type: 'agent.decided',
        round: 1,
        raw: 'garbage',
        decision: { kind: 'invalid', error: 'bad' },
        latencyMs: 1,
        stateDigest: null,
      }),
    ]);
    expect(stateName(snap)).toBe('observing');
    expect(snap.context.round).toBe(1);
    expect(effects.slice(-1)).toEqual(['observe']);
  });

  it('the wall-clock cap moves to verification by the event clock', () => {
    clock = 1000;
    const t = task({ wall_clock_sec: 1 });
    const events = [start(t), ev({ type: 'sandbox.provisioned', sandboxes: {} })];
    clock += 5000;
    events.push(ev({ type: 'observation.recorded', round: 1, text: 'o' }));
    const { snap } = drive(events);
    expect(stateName(snap)).toBe('verifying');
    expect(snap.context.limitReason).toBe('wall_clock');
  });

  it('an infrastructure fault ends in infra_error from any state', () => {
    clock = 1000;
    const { snap } = drive([
      start(task()),
      ev({
        type: 'infra.failed',
        error: { code: 'DOCKER_UNREACHABLE', message: 'x' },
        during: 'provisioning',
      }),
    ]);
    expect(stateName(snap)).toBe('infra_error');
    expect(snap.context.error?.code).toBe('DOCKER_UNREACHABLE');
  });

  it('fold equals the live drive and survives a JSON round trip of the snapshot', () => {
    clock = 1000;
    const events = [
      start(task()),
      ev({ type: 'sandbox.provisioned', sandboxes: {} }),
      ev({ type: 'observation.recorded', round: 1, text: 'o' }),
      ev({
        type: 'agent.decided',
        round: 1,
        raw: {},
        decision: { kind: 'done' },
        latencyMs: 1,
        stateDigest: null,
      }),
      verified(0),
    ];
    const live = drive(events).snap;
    expect(persist(fold(events))).toEqual(persist(live));
    expect(JSON.parse(JSON.stringify(persist(live)))).toEqual(persist(live));
    expect(stateName(initialSnapshot())).toBe('idle');
  });
});
