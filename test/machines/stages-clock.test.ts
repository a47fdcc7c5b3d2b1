/**
 * The machine's stage rules (dependencies, halts within a hand-off's checks) and clock rule
 * (a resume's downtime does not count against the wall-clock cap).
 */
import { describe, expect, it } from 'vitest';
import { applyEvent, fold, isEventRejected, stateName } from '../../machines/index.js';
import type { EpisodeEvent, EventDraft } from '../../streams/index.js';
import { kinds, machineTask, playEpisode, sh } from '../helpers/machine-log.js';

type StageDraft = Extract<EventDraft, { type: 'stage.checked' }>;
const check = (
  stage: string,
  round: number,
  passed: boolean,
  extra: Partial<StageDraft> = {},
): StageDraft => ({
  type: 'stage.checked',
  stage,
  round,
  artifacts: {},
  verdicts: [],
  score: passed ? 1 : 0,
  passed,
  halt: false,
  ...extra,
});

const twoStages = machineTask({
  environment: {
    sandboxes: { cad: { image: 'engiloop/cli:latest' }, cae: { image: 'engiloop/cli:latest' } },
  },
  stages: [{ name: 'model' }, { name: 'mesh', after: 'model', halt_on_fail: true }],
  deliverables: [
    { path: 'part.step', format: 'step', stage: 'model', sandbox: 'cad' },
    { path: 'part.inp', format: 'inp', stage: 'mesh', sandbox: 'cae' },
  ],
  criteria: [{ id: 'present', verifier: 'file.format', deliverable: 'part.inp' }],
});
const handoff = { type: 'handoff' as const, from: 'cad', path: 'part.step', to: 'cae' };

describe('stage rules', () => {
  it('a hand-off is followed by stage checks at once; a halting failure stops the round there', () => {
    const r = playEpisode(twoStages, {
      decide: (n) => (n === 1 ? { kind: 'act', actions: [sh(), handoff, sh('after')] } : { kind: 'done' }),
      stages: (round, after) =>
        after === 'handoff' ? [check('model', round, true), check('mesh', round, false, { halt: true })] : [],
      score: 0,
    });
    expect(kinds(r.effects).slice(4, 8)).toEqual([
      'execute:1.0',
      'handoff:1.1',
      'checkStages:1',
      'checkStages:1',
    ]);
    expect(r.effects.some((e) => e.type === 'execute' && e.index === 2)).toBe(false);
    expect(stateName(r.snap)).toBe('failed');
    expect(r.snap.context.failReason).toMatch(/^stage "mesh" failed/);
  });

  it('a passing hand-off check lets the round go on with its next action', () => {
    const r = playEpisode(twoStages, {
      decide: (n) => (n === 1 ? { kind: 'act', actions: [handoff, sh('after')] } : { kind: 'done' }),
      stages: (round, after) => (after === 'handoff' ? [check('model', round, true)] : []),
    });
    expect(kinds(r.effects).slice(4, 8)).toEqual([
      'handoff:1.0',
      'checkStages:1',
      'execute:1.1',
      'checkStages:1',
    ]);
    expect(stateName(r.snap)).toBe('done');
  });

  it('a stage checked before its dependency scored must be recorded as blocked, and only then', () => {
    const mesh = check('mesh', 1, true);
    const { events } = playEpisode(twoStages, {
      decide: (n) => (n === 1 ? { kind: 'act', actions: [sh()] } : { kind: 'done' }),
      stages: (round, after) =>
        after === 'round'
          ? [
              check('mesh', round, false, {
                blockedBy: { stage: 'model', score: null, min: 1 },
                halt: true,
              }),
            ]
          : [],
      score: 0,
    });
    expect(fold(events).context.status).toBe('failed');
    // The same check recorded as verified (not blocked) breaks the `after` rule.
    const at = events.findIndex((e) => e.type === 'stage.checked');
    const altered = events.map((e, i) => (i === at ? { ...mesh, v: e.v, at: e.at } : e)) as EpisodeEvent[];
    let caught: unknown;
    try {
      fold(altered);
    } catch (e) {
      caught = e;
    }
    expect(isEventRejected(caught)).toBe(true);
    expect(String(caught)).toMatch(/round 1: .*\(stage\.checked\) is not accepted in state checking_stages/);
  });
});

describe('clock rule', () => {
  const task = machineTask({ limits: { wall_clock_sec: 10 } });
  /** Round 1 played, then a worker takes over 59 s later; `downtimeMs` as its resume records. */
  function takeOver(downtimeMs?: number) {
    const { events } = playEpisode(task, { decide: () => ({ kind: 'act', actions: [sh()] }), stopAt: 5 });
    const last = events.at(-1)!.at;
    let snap = fold(events);
    expect(stateName(snap)).toBe('observing');
    const ev = (d: EventDraft, at: number) => ({ ...d, v: 3, at }) as EpisodeEvent;
    snap = applyEvent(snap, ev({ type: 'episode.claimed', worker: 'w:2' }, last + 59_000));
    snap = applyEvent(
      snap,
      ev(
        {
          type: 'episode.resumed',
          worker: 'w:2',
          state: 'observing',
          reason: 'worker_lost',
          sandboxes: {},
          replayed: 1,
          divergences: [],
          interrupted: null,
          ...(downtimeMs === undefined ? {} : { downtimeMs }),
        },
        last + 59_010,
      ),
    );
    return applyEvent(snap, ev({ type: 'observation.recorded', round: 2, text: 'o' }, last + 59_020));
  }

  it('downtime recorded on resume does not count against the wall-clock cap', () => {
    expect(stateName(takeOver(59_010))).toBe('deciding');
  });

  it('without downtime the same gap hits the cap', () => {
    for (const d of [undefined, 0]) {
      const snap = takeOver(d);
      expect(stateName(snap)).toBe('verifying');
      expect(snap.context.limitReason).toBe('wall_clock');
    }
  });
});
