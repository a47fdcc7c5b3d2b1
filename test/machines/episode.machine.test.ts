/**
 * The episode machine (rules version 2) alone: which effect each state asks for, with which
 * parameters, and the rules it owns — limits, invalid outputs, GUI stop-at-first-failure, stage
 * checks and halts, snapshot timing, the lost-sandbox budget, take-over — and that a log breaking
 * one of those rules is refused when folded.
 */
import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  effectOf,
  episodeMachine,
  EventRejectedError,
  fold,
  initialSnapshot,
  isEventRejected,
  stateName,
  statePath,
} from '../../machines/index.js';
import type { EpisodeEvent } from '../../streams/index.js';
import { failed, kinds, machineTask, ok, playEpisode, sh } from '../helpers/machine-log.js';

const act = (...actions: ReturnType<typeof sh>[]) => ({ kind: 'act' as const, actions });
const lost = (attempt: number) => ({
  type: 'sandbox.lost' as const,
  error: { code: 'CONTAINER_GONE', message: 'gone' },
  during: 'acting',
  attempt,
});

describe('episode machine: effects and limits', () => {
  it('asks for start → provision → observe → decide → execute … → verify → finish, then nothing', () => {
    const r = playEpisode(machineTask(), { decide: (n) => (n === 1 ? act(sh(), sh()) : { kind: 'done' }) });
    expect(kinds(r.effects)).toEqual([
      'start',
      'provision',
      'observe:1',
      'decide:1',
      'execute:1.0',
      'execute:1.1',
      'observe:2',
      'decide:2',
      'verify',
      'finish',
    ]);
    expect(stateName(r.snap)).toBe('done');
    expect(statePath(r.snap)).toBe('ended');
    expect(effectOf(r.snap)).toBeNull();
    expect(r.snap.context.history[0]!.results).toHaveLength(2);
  });

  it('FAIL still verifies, then ends failed with the reason', () => {
    const r = playEpisode(machineTask(), { decide: () => ({ kind: 'fail', reason: 'cannot' }), score: 0 });
    expect(kinds(r.effects).slice(-2)).toEqual(['verify', 'finish']);
    expect(stateName(r.snap)).toBe('failed');
    expect(r.snap.context.failReason).toBe('cannot');
  });

  it('ends at the round limit after verifying; the verified score is kept', () => {
    const r = playEpisode(machineTask({ limits: { max_rounds: 2 } }), { decide: () => act(sh()) });
    expect(r.effects.filter((e) => e.type === 'decide')).toHaveLength(2);
    expect(stateName(r.snap)).toBe('limit');
    expect(r.snap.context.limitReason).toBe('max_rounds');
    expect(r.snap.context.verification?.score).toBe(1);
  });

  it('an invalid output spends its round and asks for a new observation', () => {
    const r = playEpisode(machineTask(), {
      decide: (n) => (n === 1 ? { kind: 'invalid', error: 'bad' } : { kind: 'done' }),
    });
    expect(kinds(r.effects).slice(2, 5)).toEqual(['observe:1', 'decide:1', 'observe:2']);
  });

  it('the wall-clock cap moves to verification by the events’ own clock', () => {
    const r = playEpisode(machineTask({ limits: { wall_clock_sec: 1 } }), {
      decide: () => act(sh()),
      tick: 400,
    });
    expect(stateName(r.snap)).toBe('limit');
    expect(r.snap.context.limitReason).toBe('wall_clock');
  });

  it('an infrastructure fault ends in infra_error, and the end records a null score', () => {
    const r = playEpisode(machineTask(), {
      fault: (e) =>
        e.type === 'provision'
          ? {
              type: 'infra.failed',
              error: { code: 'DOCKER_UNREACHABLE', message: 'x' },
              during: 'provisioning',
            }
          : null,
    });
    expect(stateName(r.snap)).toBe('infra_error');
    expect(r.snap.context.error?.code).toBe('DOCKER_UNREACHABLE');
    expect(r.events.at(-1)).toMatchObject({ type: 'episode.ended', status: 'infra_error', score: null });
  });

  it('every state the machine can rest in has an effect listed (none falls back to a default)', () => {
    const leaves: string[] = [];
    const walk = (node: typeof episodeMachine.root, path: string[]) => {
      const kids = Object.values(node.states);
      if (node.type === 'history') return;
      // A transient state (an eventless transition that always leaves) is never rested in.
      const transient = node.always?.some((t) => t.guard === undefined) ?? false;
      if (kids.length === 0 && !transient) leaves.push([...path, node.key].slice(1).join('.'));
      for (const k of kids) walk(k, [...path, node.key]);
    };
    walk(episodeMachine.root, []);
    expect(leaves).toContain('running.live.verifying.stages');
    expect(leaves).not.toContain('running.live.roundEnd');
    expect(leaves.length).toBeGreaterThan(10);
    const idle = initialSnapshot();
    for (const leaf of leaves) {
      const snap = episodeMachine.resolveState({
        value: leaf
          .split('.')
          .reverse()
          .reduce<unknown>((v, k) => (v === null ? k : { [k]: v }), null),
        context: {
          ...idle.context,
          sweep: { after: 'round', checked: 0 },
          snapshot: { reason: 'interval' },
          restore: { reason: 'worker_lost' },
          pending: [sh()],
          status: 'done',
        },
      } as never);
      expect(() => effectOf(snap), leaf).not.toThrow();
    }
  });
});

describe('episode machine: the rules the runner used to hold', () => {
  it('GUI: a batch stops at its first failing action; the rest are asked for as skips', () => {
    const task = machineTask({
      interface: 'gui',
      environment: {
        sandboxes: { main: { image: 'engiloop/desktop:latest', desktop: { app: 'librecad' } } },
      },
    });
    const r = playEpisode(task, {
      decide: (n) => (n === 1 ? act(sh('a'), sh('b'), sh('c')) : { kind: 'done' }),
      result: (_r, i) => (i === 1 ? failed : ok),
    });
    expect(kinds(r.effects).slice(4, 7)).toEqual(['execute:1.0', 'execute:1.1', 'skip:1.2']);
    // A CLI batch goes on after a failure.
    const cli = playEpisode(machineTask(), {
      decide: (n) => (n === 1 ? act(sh('a'), sh('b'), sh('c')) : { kind: 'done' }),
      result: (_r, i) => (i === 1 ? failed : ok),
    });
    expect(kinds(cli.effects).slice(4, 7)).toEqual(['execute:1.0', 'execute:1.1', 'execute:1.2']);
  });

  it('snapshots every snapshot_every rounds, and after a round whose stage checks recorded something', () => {
    const task = machineTask({
      limits: { max_rounds: 5, snapshot_every: 2 },
      deliverables: [{ path: 'part.stl', format: 'stl', stage: 'cad' }],
    });
    const r = playEpisode(task, {
      decide: (n) => (n <= 4 ? act(sh()) : { kind: 'done' }),
      stages: (round, after) =>
        round === 3 && after === 'round'
          ? [
              {
                type: 'stage.checked',
                stage: 'cad',
                round,
                artifacts: {},
                verdicts: [],
                score: 1,
                passed: true,
                halt: false,
              },
            ]
          : [],
    });
    const snaps = r.effects.filter((e) => e.type === 'snapshot');
    expect(snaps).toEqual([
      { type: 'snapshot', round: 2, reason: 'interval' },
      { type: 'snapshot', round: 3, reason: 'stage' },
      { type: 'snapshot', round: 4, reason: 'interval' },
    ]);
    expect(r.effects.filter((e) => e.type === 'checkStages').map((e) => 'after' in e && e.after)).toEqual([
      'round',
      'round',
      'round',
      'round',
      'final',
    ]);
  });

  it('a failed halt_on_fail stage ends the episode failed after the final checks', () => {
    const task = machineTask({
      stages: [{ name: 'cad', halt_on_fail: true }],
      deliverables: [{ path: 'part.stl', format: 'stl', stage: 'cad' }],
    });
    const bad = {
      criterion: 'present',
      verifier: 'file.format',
      role: 'check' as const,
      passed: false,
      score: 0,
      reason: 'empty',
    };
    const r = playEpisode(task, {
      decide: () => act(sh()),
      stages: (round, after) =>
        after === 'round'
          ? [
              {
                type: 'stage.checked',
                stage: 'cad',
                round,
                artifacts: {},
                verdicts: [bad],
                score: 0,
                passed: false,
                halt: true,
              },
            ]
          : [],
      score: 0,
    });
    expect(r.effects.filter((e) => e.type === 'decide')).toHaveLength(1);
    expect(stateName(r.snap)).toBe('failed');
    expect(r.snap.context.failReason).toBe('stage "cad" failed: present: empty');
  });

  it('a lost sandbox is restored up to limits.sandbox_retries times, then the episode is infra_error', () => {
    const task = machineTask({ limits: { sandbox_retries: 1 } });
    let n = 0;
    // One loss in round 1, one in round 2.
    const r = playEpisode(task, {
      decide: (k) => (k <= 2 ? act(sh()) : { kind: 'done' }),
      fault: (e, _k, snap) =>
        e.type === 'execute' && e.round > n ? (n++, lost(snap.context.losses + 1)) : null,
    });
    expect(kinds(r.effects)).toContain('restore');
    expect(r.effects.find((e) => e.type === 'restore')).toMatchObject({
      reason: 'sandbox_lost',
      state: 'acting',
      rebuild: true,
    });
    expect(stateName(r.snap)).toBe('infra_error');
    expect(r.snap.context.error).toMatchObject({ code: 'CONTAINER_GONE', during: 'acting' });
  });

  it('a worker taking over restores first, then goes on where the episode was', () => {
    const half = playEpisode(machineTask(), {
      decide: (n) => (n === 1 ? act(sh(), sh()) : { kind: 'done' }),
      stopAt: 5,
    });
    expect(stateName(half.snap)).toBe('acting');
    let snap = fold(half.events);
    const claimed = { type: 'episode.claimed', worker: 'w:2', v: 3, at: 2_000_000 } as EpisodeEvent;
    snap = applyEvent(snap, claimed);
    expect(effectOf(snap as never)).toEqual({
      type: 'restore',
      reason: 'worker_lost',
      state: 'acting',
      rebuild: true,
    });
    snap = applyEvent(snap, {
      type: 'episode.resumed',
      worker: 'w:2',
      state: 'acting',
      reason: 'worker_lost',
      sandboxes: {},
      replayed: 1,
      divergences: [],
      interrupted: null,
      downtimeMs: 500,
      v: 3,
      at: 2_000_010,
    } as EpisodeEvent);
    expect(effectOf(snap as never)).toMatchObject({ type: 'execute', round: 1, index: 1 });
    // The resume's downtime does not count against the wall clock.
    expect(snap.context.startedAt).toBe(half.events[0]!.at + 500);
  });
});

describe('folding refuses a log that breaks the rules', () => {
  const reject = (events: EpisodeEvent[]) => {
    try {
      fold(events);
    } catch (e) {
      if (isEventRejected(e)) return e;
      throw e;
    }
    throw new Error('the altered log folded');
  };

  it('an action run after a failed GUI action', () => {
    const task = machineTask({
      interface: 'gui',
      environment: {
        sandboxes: { main: { image: 'engiloop/desktop:latest', desktop: { app: 'librecad' } } },
      },
    });
    const { events } = playEpisode(task, {
      decide: (n) => (n === 1 ? act(sh('a'), sh('b')) : { kind: 'done' }),
      result: (_r, i) => (i === 0 ? failed : ok),
    });
    const i = events.findIndex((e) => e.type === 'action.executed' && e.index === 1);
    const altered = events.map((e, k) =>
      k === i && e.type === 'action.executed' ? { ...e, result: ok } : e,
    );
    const err = reject(altered);
    expect(err).toBeInstanceOf(EventRejectedError);
    expect(err.round).toBe(1);
    expect(err.message).toMatch(
      /round 1: event \d+ \(action\.executed\) is not accepted in state acting; the machine expects the outcome of skip \(round 1, action 2\)/,
    );
  });

  it('an action other than the one decided (another command, a field added, the same fields reordered)', () => {
    const { events } = playEpisode(machineTask(), {
      decide: (n) => (n === 1 ? act(sh('make part')) : { kind: 'done' }),
    });
    expect(() => fold(events)).not.toThrow();
    const i = events.findIndex((e) => e.type === 'action.executed');
    const variants = [
      { type: 'shell', command: 'make other' },
      { type: 'shell', command: 'make part', timeoutSec: 5 },
      { command: 'make part', type: 'shell' },
    ];
    for (const action of variants) {
      const altered = events.map((e, k) => (k === i && e.type === 'action.executed' ? { ...e, action } : e));
      const err = reject(altered as EpisodeEvent[]);
      expect(err.eventType).toBe('action.executed');
      expect(err.round).toBe(1);
    }
  });

  it('a skipped snapshot', () => {
    const { events } = playEpisode(machineTask({ limits: { max_rounds: 4, snapshot_every: 2 } }), {
      decide: (n) => (n <= 3 ? act(sh()) : { kind: 'done' }),
    });
    const err = reject(events.filter((e) => e.type !== 'workspace.snapshotted'));
    expect(err.round).toBe(2);
    expect(err.state).toBe('snapshotting');
    expect(err.message).toMatch(/expects an interval snapshot \(round 2\)/);
  });

  it('a restore past the lost-sandbox budget', () => {
    // Recorded with a budget of 2; the same log under a budget of 1 must stop at the second loss.
    let n = 0;
    const { events } = playEpisode(machineTask({ limits: { sandbox_retries: 2 } }), {
      decide: (r) => (r <= 2 ? act(sh()) : { kind: 'done' }),
      fault: (e, _k, snap) =>
        e.type === 'execute' && e.round > n ? (n++, lost(snap.context.losses + 1)) : null,
    });
    expect(events.filter((e) => e.type === 'episode.resumed')).toHaveLength(2);
    const altered = events.map((e) =>
      e.type === 'episode.started' ? { ...e, rules: { ...e.rules!, sandboxRetries: 1 } } : e,
    );
    const err = reject(altered);
    expect(err.eventType).toBe('episode.resumed');
    expect(err.state).toBe('infra_error');
    expect(err.round).toBe(2);
  });

  it('a log under unknown rules (a newer machine, an unknown flag) is refused by name', () => {
    const { events } = playEpisode(machineTask());
    const newer = events.map((e) => (e.type === 'episode.started' ? { ...e, machine: 9 } : e));
    expect(() => fold(newer)).toThrow(/machine rules version 9; this build folds versions 1, 2/);
    const flagged = events.map((e) => (e.type === 'episode.started' ? { ...e, flags: [7] } : e));
    expect(() => fold(flagged)).toThrow(/behaviour flag\(s\) 7, unknown to this build/);
  });
});
