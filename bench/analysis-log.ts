/**
 * Synthetic but realistic episode logs for bench/analysis.ts: the task as a committed fixture
 * recorded it (test/fixtures/episodes), played through the machine's own protocol (each effect it
 * asks for, its outcome recorded as the runner would, as test/helpers/machine-log.ts does), with
 * model-call usage, command output from the real tools (iverilog / vvp / openscad messages that
 * feedback-patterns.yaml matches) and interval snapshots. Every log is folded strictly on the way,
 * so it is one the machine accepts.
 */
import { readFileSync } from 'node:fs';
import { snapshotDigest } from '../actors/episode/index.js';
import { effectOf, initialSnapshot, rulesFor, step, type Effect } from '../machines/index.js';
import {
  decodeEvent,
  EVENT_VERSION,
  type ActionRecord,
  type CommandResultRecord,
  type Decision,
  type EpisodeEvent,
  type EventDraft,
  type TaskRecord,
  type VerdictData,
} from '../streams/index.js';
import { taskFromRecord } from '../tasks/index.js';

type Started = Extract<EpisodeEvent, { type: 'episode.started' }>;
type Verified = Extract<EpisodeEvent, { type: 'verification.completed' }>;

/** A committed fixture's events (`<name>.v3.b64`). */
export function fixture(name: string): EpisodeEvent[] {
  const url = new URL(`../test/fixtures/episodes/${name}.v${EVENT_VERSION}.b64`, import.meta.url);
  return readFileSync(url, 'utf8')
    .trim()
    .split('\n')
    .map((l) => decodeEvent(Buffer.from(l, 'base64')));
}

/** What an episode's script answers for each effect. */
export interface EpisodeScript {
  episodeId: string;
  runId: string;
  /** The recorded `episode.started` of a fixture: its task, with limits changed as given. */
  from: Started;
  maxRounds: number;
  snapshotEvery: number;
  /** Task id to record instead of the fixture's (a run spans many tasks). */
  taskId?: string;
  decide(round: number): Decision;
  result(round: number, action: ActionRecord): CommandResultRecord;
  /** The verification of the fixture, or another one. */
  verification: Omit<Verified, 'type' | 'v' | 'at'>;
  /** An infrastructure fault recorded instead of the n-th effect. */
  fault?: (effect: Effect, n: number) => EventDraft | null;
}

/** The fixture's task with `max_rounds` and `snapshot_every` changed (and its rules to match). */
function startedFor(s: EpisodeScript): EventDraft {
  const rec = s.from.task as TaskRecord & { limits: Record<string, unknown> };
  const task: TaskRecord = {
    ...rec,
    id: s.taskId ?? rec.id,
    limits: { ...rec.limits, max_rounds: s.maxRounds, snapshot_every: s.snapshotEvery },
  } as TaskRecord;
  const parsed = taskFromRecord(task);
  if (!parsed) throw new Error(`fixture task ${rec.id} does not validate`);
  return {
    type: 'episode.started',
    episodeId: s.episodeId,
    runId: s.runId,
    machine: s.from.machine,
    flags: s.from.flags,
    rules: rulesFor(parsed),
    task,
    agent: 'anthropic:claude-sonnet-4',
  };
}

const call = (round: number) => ({
  provider: 'anthropic',
  model: 'claude-sonnet-4-20250514',
  usage: {
    input: 3_000 + 420 * round,
    output: 180 + (round % 7) * 40,
    cached: 2_400 + 400 * round,
    cacheWrite: 420,
  },
  costUsd: 0.004 + 0.0004 * round,
  latencyMs: 2_000 + (round % 5) * 700,
  retries: 0,
  stopReason: 'end_turn',
  promptVersion: 3,
  exchanges: 'e'.repeat(64),
});

/** Plays the episode to its end; throws (from the strict step) if a drafted event is refused. */
export function playScript(s: EpisodeScript, t0 = 1_796_143_448_000): EpisodeEvent[] {
  let at = t0;
  let snap = initialSnapshot();
  const out: EpisodeEvent[] = [];
  const emit = (d: EventDraft, ms = 5) => {
    const e = { ...d, v: EVENT_VERSION, at: (at += ms) } as EpisodeEvent;
    snap = step(snap, e);
    out.push(e);
  };
  let lastOutput = '';
  for (let n = 0, effect = effectOf(snap); effect; n++, effect = effectOf(snap)) {
    const fault = s.fault?.(effect, n);
    if (fault) {
      emit(fault);
      continue;
    }
    switch (effect.type) {
      case 'start':
        emit(startedFor(s));
        break;
      case 'provision':
        emit({ type: 'sandbox.provisioned', sandboxes: { main: 'c'.repeat(64) } }, 900);
        break;
      case 'observe':
        emit({
          type: 'observation.recorded',
          round: effect.round,
          text: `Round ${effect.round} of ${s.maxRounds}.\n${lastOutput}`,
        });
        break;
      case 'decide': {
        const decision = s.decide(effect.round);
        const raw = decision.kind === 'act' ? { actions: decision.actions } : { [decision.kind]: true };
        const c = call(effect.round);
        emit(
          {
            type: 'agent.decided',
            round: effect.round,
            raw,
            decision,
            latencyMs: c.latencyMs,
            stateDigest: snapshotDigest(snap),
            call: c,
          },
          c.latencyMs,
        );
        break;
      }
      case 'execute':
      case 'skip':
      case 'handoff': {
        const { round, index, action } = effect;
        emit({ type: 'action.started', round, index, action }, 1);
        const result = s.result(round, action);
        lastOutput = `$ ${'command' in action ? String(action.command) : action.type}\n[exit ${result.exitCode}, ${result.durationMs} ms]\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
        emit({ type: 'action.executed', round, index, action, result }, result.durationMs);
        break;
      }
      case 'checkStages':
        emit({ type: 'stages.swept', round: effect.round, after: effect.after });
        break;
      case 'snapshot':
        emit(
          {
            type: 'workspace.snapshotted',
            round: effect.round,
            reason: effect.reason,
            sandboxes: { main: { digest: (effect.round % 16).toString(16).repeat(64), bytes: 12_556 } },
            durationMs: 90,
          },
          90,
        );
        break;
      case 'restore':
        throw new Error('the bench scripts no restores');
      case 'verify':
        emit({ type: 'verification.completed', ...s.verification }, 450);
        break;
      case 'finish':
        emit({
          type: 'episode.ended',
          status: effect.status,
          score: effect.score,
          rounds: effect.rounds,
          snapshotDigest: snapshotDigest(snap),
        });
        break;
    }
  }
  return out;
}

/** The verification of a fixture (its last `verification.completed`). */
export function verificationOf(events: readonly EpisodeEvent[]): EpisodeScript['verification'] {
  const v = events.find((e): e is Verified => e.type === 'verification.completed');
  if (!v) throw new Error('fixture has no verification');
  const { type: _t, v: _v, at: _a, ...rest } = v;
  return rest;
}

/** A verdict list with every criterion passing (for passing episodes). */
export const allPassed = (vs: readonly VerdictData[]): VerdictData[] =>
  vs.map((x) => ({ ...x, passed: true, score: 1 }));
