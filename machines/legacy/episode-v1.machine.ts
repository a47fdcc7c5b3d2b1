/**
 * FROZEN: the rules of machine version 1, kept so logs written under them (event versions 1 and 2,
 * whose `episode.started` has no `machine` field) still fold exactly as they were recorded, with
 * the state digests they recorded. Never change it: a change would make those logs diverge. New
 * episodes run `../episode.machine.ts` (version 2).
 *
 * The episode machine: provisioning → observing → deciding → acting → observing … → verifying →
 * done | failed | limit, and infra_error for faults of the harness or infrastructure.
 *
 * Pure. It never performs effects: its entry actions (`provision`, `observe`, `decide`, `execute`,
 * `verify`, `finish`) are names the runner reads from `transition()`'s action list and carries out,
 * and every outside result (clock readings, observations, agent outputs, exit codes) arrives as a
 * logged `EpisodeEvent`. So folding the log with `transition()` gives the live run's states exactly.
 *
 * Limit rule: at the limit (max rounds or wall clock) the deliverables are still verified, and the
 * episode's score is the verified score: a task can pass at the limit if its artifacts are right
 * (EngiWorld scores the artifacts, not the agent's declaration). The status stays `limit`.
 */
import { assertEvent, assign, setup } from 'xstate';
import type { EpisodeEvent } from '../../streams/index.js';
import { emptyContext, type EpisodeContext, type Outcome, type RoundRecord } from './context-v1.js';

type Ev<T extends EpisodeEvent['type']> = Extract<EpisodeEvent, { type: T }>;

/** The event, checked to be of `type` (xstate's `assertEvent`). */
function eventOf<T extends EpisodeEvent['type']>(event: EpisodeEvent, type: T): Ev<T> {
  assertEvent(event, type);
  return event as unknown as Ev<T>;
}

const trim = (h: RoundRecord[], n: number): RoundRecord[] => (h.length > n ? h.slice(h.length - n) : h);

export const episodeMachineV1 = setup({
  types: {
    context: {} as EpisodeContext,
    events: {} as EpisodeEvent,
  },
  actions: {
    // Effect names: carried out by the runner (actors/), never here.
    provision: () => {},
    observe: () => {},
    decide: () => {},
    execute: () => {},
    verify: () => {},
    finish: () => {},
    stamp: assign({ lastAt: ({ event }) => event.at }),
    start: assign(({ event }) => {
      const e = eventOf(event, 'episode.started');
      // Machine 1 read its inputs from the task itself (task.yaml's field names).
      const task = e.task as unknown as {
        id: string;
        limits: { max_rounds: number; wall_clock_sec: number };
        history_window: number;
      };
      return {
        ...emptyContext(),
        episodeId: e.episodeId,
        runId: e.runId,
        taskId: task.id,
        agent: e.agent,
        maxRounds: task.limits.max_rounds,
        wallClockMs: task.limits.wall_clock_sec * 1000,
        historyWindow: task.history_window,
        startedAt: e.at,
        lastAt: e.at,
      };
    }),
    observed: assign({ observation: ({ event }) => eventOf(event, 'observation.recorded').text }),
    decided: assign(({ context, event }) => {
      const e = eventOf(event, 'agent.decided');
      const rec: RoundRecord = {
        round: e.round,
        observation: context.observation ?? '',
        decision: e.decision,
        results: [],
      };
      return {
        round: e.round,
        observation: null,
        pending: e.decision.kind === 'act' ? e.decision.actions : [],
        executed: 0,
        history: trim([...context.history, rec], context.historyWindow),
        failReason: e.decision.kind === 'fail' ? e.decision.reason : null,
      };
    }),
    actionDone: assign(({ context, event }) => {
      const e = eventOf(event, 'action.executed');
      const last = context.history[context.history.length - 1];
      const history = last
        ? [
            ...context.history.slice(0, -1),
            { ...last, results: [...last.results, { action: e.action, result: e.result }] },
          ]
        : context.history;
      return { executed: context.executed + 1, history };
    }),
    resumeClock: assign({
      startedAt: ({ context, event }) =>
        context.startedAt + (eventOf(event, 'episode.resumed').downtimeMs ?? 0),
    }),
    stageHalted: assign(({ event }) => {
      const e = eventOf(event, 'stage.checked');
      const why = e.blockedBy
        ? `depends on stage "${e.blockedBy.stage}" (score ${e.blockedBy.score ?? 'none'} < ${e.blockedBy.min})`
        : e.verdicts
            .filter((v) => !v.passed)
            .map((v) => `${v.criterion}: ${v.reason}`)
            .join('; ');
      return { outcome: 'fail' as Outcome, failReason: `stage "${e.stage}" failed: ${why}` };
    }),
    outcomeDone: assign({ outcome: 'done' as Outcome }),
    outcomeFail: assign({ outcome: 'fail' as Outcome }),
    outcomeRounds: assign({ outcome: 'limit' as Outcome, limitReason: 'max_rounds' as const }),
    outcomeClock: assign({ outcome: 'limit' as Outcome, limitReason: 'wall_clock' as const }),
    verified: assign({
      verification: ({ event }) => {
        const e = eventOf(event, 'verification.completed');
        return { score: e.score, passed: e.passed, verdicts: e.verdicts };
      },
    }),
    infra: assign({
      error: ({ event }) => {
        const e = eventOf(event, 'infra.failed');
        return { ...e.error, during: e.during };
      },
    }),
    statusDone: assign({ status: 'done' as const }),
    statusFailed: assign({ status: 'failed' as const }),
    statusLimit: assign({ status: 'limit' as const }),
    statusInfra: assign({ status: 'infra_error' as const }),
  },
  guards: {
    /** The wall-clock cap has passed (by the event's own clock reading). */
    clockOut: ({ context, event }) => event.at - context.startedAt > context.wallClockMs,
    stageHalts: ({ event }) => eventOf(event, 'stage.checked').halt,
    isAct: ({ event }) => eventOf(event, 'agent.decided').decision.kind === 'act',
    isDone: ({ event }) => eventOf(event, 'agent.decided').decision.kind === 'done',
    isFail: ({ event }) => eventOf(event, 'agent.decided').decision.kind === 'fail',
    /** This decision used the last round the task allows. */
    lastRound: ({ context, event }) => eventOf(event, 'agent.decided').round >= context.maxRounds,
    /** More actions of this round remain after this one. */
    moreActions: ({ context }) => context.executed + 1 < context.pending.length,
    roundsLeft: ({ context }) => context.round < context.maxRounds,
    outcomeIsDone: ({ context }) => context.outcome === 'done',
    outcomeIsFail: ({ context }) => context.outcome === 'fail',
  },
}).createMachine({
  id: 'episode',
  initial: 'idle',
  context: emptyContext,
  on: {
    'infra.failed': { target: '.infra_error', actions: ['stamp', 'infra'] },
    'episode.resumed': { actions: 'resumeClock' },
  },
  states: {
    idle: {
      on: { 'episode.started': { target: 'provisioning', actions: 'start' } },
    },
    provisioning: {
      entry: 'provision',
      on: { 'sandbox.provisioned': { target: 'observing', actions: 'stamp' } },
    },
    observing: {
      entry: 'observe',
      on: {
        'stage.checked': { guard: 'stageHalts', target: 'verifying', actions: ['stamp', 'stageHalted'] },
        'observation.recorded': [
          { guard: 'clockOut', target: 'verifying', actions: ['stamp', 'outcomeClock'] },
          { target: 'deciding', actions: ['stamp', 'observed'] },
        ],
      },
    },
    deciding: {
      entry: 'decide',
      on: {
        'agent.decided': [
          { guard: 'clockOut', target: 'verifying', actions: ['stamp', 'decided', 'outcomeClock'] },
          { guard: 'isDone', target: 'verifying', actions: ['stamp', 'decided', 'outcomeDone'] },
          { guard: 'isFail', target: 'verifying', actions: ['stamp', 'decided', 'outcomeFail'] },
          { guard: 'isAct', target: 'acting', actions: ['stamp', 'decided'] },
          // An invalid output spends its round; the next observation tells the agent what was wrong.
          { guard: 'lastRound', target: 'verifying', actions: ['stamp', 'decided', 'outcomeRounds'] },
          { target: 'observing', actions: ['stamp', 'decided'] },
        ],
      },
    },
    acting: {
      entry: 'execute',
      on: {
        // A hand-off's stage is checked at once; a halting failure stops the round there.
        'stage.checked': { guard: 'stageHalts', target: 'verifying', actions: ['stamp', 'stageHalted'] },
        'action.executed': [
          { guard: 'moreActions', actions: ['stamp', 'actionDone'] },
          { guard: 'clockOut', target: 'verifying', actions: ['stamp', 'actionDone', 'outcomeClock'] },
          { guard: 'roundsLeft', target: 'observing', actions: ['stamp', 'actionDone'] },
          { target: 'verifying', actions: ['stamp', 'actionDone', 'outcomeRounds'] },
        ],
      },
    },
    verifying: {
      entry: 'verify',
      on: {
        'verification.completed': [
          { guard: 'outcomeIsDone', target: 'done', actions: ['stamp', 'verified'] },
          { guard: 'outcomeIsFail', target: 'failed', actions: ['stamp', 'verified'] },
          { target: 'limit', actions: ['stamp', 'verified'] },
        ],
      },
    },
    done: { type: 'final', entry: ['statusDone', 'finish'] },
    failed: { type: 'final', entry: ['statusFailed', 'finish'] },
    limit: { type: 'final', entry: ['statusLimit', 'finish'] },
    infra_error: { type: 'final', entry: ['statusInfra', 'finish'] },
  },
});
