/**
 * The episode machine, rules version 2: provisioning → observing → deciding → acting → (stage
 * checks → snapshot) → observing … → verifying → done | failed | limit, and infra_error for faults of
 * the harness or infrastructure; then `ended` once `episode.ended` is recorded.
 *
 * Pure, and the owner of every episode rule. It never performs effects: each state names the effect
 * it waits for (machines/effects.ts `effectOf`), the runner carries it out and records the outcome as
 * events, and every outside result (clock readings, observations, agent outputs, exit codes, file
 * checks) arrives as a logged `EpisodeEvent`. Every event is checked by a guard: an event a state
 * does not accept is a divergence when folding (machines/fold.ts), so the fold re-checks each rule:
 * - a batch stops at its first failing action when `rules.stopAtFirstFailure` (GUI tasks): the
 *   remaining actions must be recorded as skipped;
 * - stage checks follow every round, hand-off and the end (tasks with stages only), each stage's
 *   `after` dependency and `halt_on_fail` as the rules say, and a halting check ends the episode;
 * - a workspace snapshot follows a round whose stage checks recorded something
 *   (`snapshotAfterStages`) and every `snapshotEvery`-th round;
 * - a lost sandbox is restored at most `rules.sandboxRetries` times, then the episode is infra_error;
 * - a worker that takes over (`episode.claimed`) restores the sandboxes before anything else.
 *
 * Limit rule: at the limit (max rounds or wall clock) the deliverables are still verified, and the
 * episode's score is the verified score: a task can pass at the limit if its artifacts are right
 * (EngiWorld scores the artifacts, not the agent's declaration). The status stays `limit`.
 */
import { and, assertEvent, assign, not, setup } from 'xstate';
import type { EpisodeEvent, EpisodeStatus } from '../streams/index.js';
import { emptyContext, type EpisodeContext, type Phase, type SweepAfter } from './context.js';
import {
  afterAction,
  afterDecision,
  afterStageCheck,
  endScore,
  isCurrentAction,
  snapshotReason,
  stageCheckFits,
} from './episode.logic.js';
import { FLAGS, MACHINE_VERSION } from './rules.js';

const phase = (p: Phase) => ({ type: 'phase', params: { phase: p } }) as const;
const sweepFrom = (after: SweepAfter) => ({ type: 'sweepFrom', params: { after } }) as const;
const decisionIs = (kind: 'act' | 'done' | 'fail') => ({ type: 'decisionIs', params: { kind } }) as const;
const terminal = (status: EpisodeStatus) =>
  ({
    entry: { type: 'status', params: { status } },
    on: {
      'episode.ended': { guard: 'endFits', target: 'ended', actions: 'stamp' },
      'episode.claimed': { actions: 'stamp' },
    },
  }) as const;

export const episodeMachine = setup({
  types: {
    context: {} as EpisodeContext,
    events: {} as EpisodeEvent,
  },
  actions: {
    // Every accepted event sets `lastAt` to its `at`: `stamp` alone, or, where a transition has an
    // action that reads the event (`observed`, `decided`, `actionDone`, …), that action sets it in
    // the same assign. Each assign costs xstate a context copy and a new snapshot, so one per event
    // instead of two keeps the fold ~12 % faster (bench/fold.ts); the context is the same.
    stamp: assign({ lastAt: ({ event }) => event.at }),
    phase: assign((_, p: { phase: Phase }) => ({ phase: p.phase })),
    start: assign(({ event }) => {
      assertEvent(event, 'episode.started');
      return {
        ...emptyContext(),
        episodeId: event.episodeId,
        runId: event.runId,
        taskId: event.task.id,
        agent: event.agent,
        machine: MACHINE_VERSION,
        flags: event.flags,
        rules: event.rules!,
        startedAt: event.at,
        lastAt: event.at,
      };
    }),
    provisioned: assign({ provisioned: true }),
    observed: assign(({ event }) => {
      assertEvent(event, 'observation.recorded');
      return { lastAt: event.at, observation: event.text };
    }),
    decided: assign(({ context, event }) => {
      assertEvent(event, 'agent.decided');
      return { lastAt: event.at, ...afterDecision(context, event) };
    }),
    handedOff: assign(({ event }) => ({ lastAt: event.at, handedOff: true })),
    actionDone: assign(({ context, event }) => {
      assertEvent(event, 'action.executed');
      return { lastAt: event.at, ...afterAction(context, event) };
    }),
    sweepFrom: assign((_, p: { after: SweepAfter }) => ({ sweep: { after: p.after, checked: 0 } })),
    staged: assign(({ context, event }) => {
      assertEvent(event, 'stage.checked');
      return { lastAt: event.at, ...afterStageCheck(context, event) };
    }),
    swept: assign({ sweep: null }),
    stageHalted: assign({ outcome: 'fail' as const, failReason: ({ context }) => context.halted }),
    snapshotFor: assign({ snapshot: ({ context }) => ({ reason: snapshotReason(context) ?? 'interval' }) }),
    snapshotted: assign(({ event }) => ({ lastAt: event.at, snapshot: null })),
    lost: assign(({ context, event }) => ({ lastAt: event.at, losses: context.losses + 1 })),
    lostForGood: assign({
      error: ({ event }) => {
        assertEvent(event, 'sandbox.lost');
        return { ...event.error, during: event.during };
      },
    }),
    restoreFor: assign((_, p: { reason: 'worker_lost' | 'sandbox_lost' }) => ({
      restore: { reason: p.reason },
    })),
    resumed: assign(({ context, event }) => {
      assertEvent(event, 'episode.resumed');
      return { lastAt: event.at, restore: null, startedAt: context.startedAt + (event.downtimeMs ?? 0) };
    }),
    outcomeDone: assign({ outcome: 'done' as const }),
    outcomeFail: assign({ outcome: 'fail' as const }),
    outcomeRounds: assign({ outcome: 'limit' as const, limitReason: 'max_rounds' as const }),
    outcomeClock: assign({ outcome: 'limit' as const, limitReason: 'wall_clock' as const }),
    verified: assign(({ event }) => {
      assertEvent(event, 'verification.completed');
      return {
        lastAt: event.at,
        verification: { score: event.score, passed: event.passed, verdicts: event.verdicts },
      };
    }),
    infra: assign(({ event }) => {
      assertEvent(event, 'infra.failed');
      return { lastAt: event.at, error: { ...event.error, during: event.during } };
    }),
    status: assign((_, p: { status: EpisodeStatus }) => ({ status: p.status })),
  },
  guards: {
    /** Written under these rules (version and flags this build knows). */
    knownRules: ({ event }) => {
      assertEvent(event, 'episode.started');
      return (
        event.machine === MACHINE_VERSION &&
        event.rules !== undefined &&
        event.flags.every((f) => FLAGS[f] !== undefined)
      );
    },
    /** The wall-clock cap has passed (by the event's own clock reading). */
    clockOut: ({ context, event }) => event.at - context.startedAt > context.rules.wallClockMs,
    /** The same, by the last event applied (for the steps that follow it). */
    clockOutNow: ({ context }) => context.lastAt - context.startedAt > context.rules.wallClockMs,
    observationFits: ({ context, event }) => {
      assertEvent(event, 'observation.recorded');
      return event.round === context.round + 1;
    },
    decisionFits: ({ context, event }) => {
      assertEvent(event, ['agent.decided', 'agent.retried']);
      return event.round === context.round + 1;
    },
    decisionIs: ({ event }, p: { kind: 'act' | 'done' | 'fail' }) => {
      assertEvent(event, 'agent.decided');
      return event.decision.kind === p.kind;
    },
    /** This decision used the last round the task allows. */
    lastRound: ({ context, event }) => {
      assertEvent(event, 'agent.decided');
      return event.round >= context.rules.maxRounds;
    },
    /** The action the machine asked for is starting. */
    startFits: ({ context, event }) => {
      assertEvent(event, 'action.started');
      return isCurrentAction(context, event);
    },
    /** The current action is a hand-off that is being carried out (not skipped), once. */
    handoffFits: ({ context, event }) => {
      assertEvent(event, 'artifact.handed_off');
      return (
        event.round === context.round &&
        event.index === context.executed &&
        context.pending[context.executed]?.type === 'handoff' &&
        !context.skipping &&
        !context.handedOff
      );
    },
    /**
     * The result of the action the machine asked for: skipped exactly when an earlier action of the
     * batch failed and the rules stop at the first failure.
     */
    resultFits: ({ context, event }) => {
      assertEvent(event, 'action.executed');
      return isCurrentAction(context, event) && (event.result.skipped === true) === context.skipping;
    },
    /** A hand-off delivered its artifact, and the task has stages to check on it. */
    sweepsAfterHandoff: ({ context }) =>
      context.rules.stages.length > 0 &&
      context.pending[context.executed]?.type === 'handoff' &&
      context.handedOff,
    /** More actions of this round remain after the one just recorded. */
    moreActions: ({ context }) => context.executed + 1 < context.pending.length,
    /** Actions of this round remain (after a hand-off's stage checks). */
    actionsLeft: ({ context }) => context.executed < context.pending.length,
    roundsLeft: ({ context }) => context.round < context.rules.maxRounds,
    hasStages: ({ context }) => context.rules.stages.length > 0,
    /**
     * A check of one of the task's stages, in the round under way, agreeing with the rules: blocked
     * exactly when its `after` stage has not scored `minScore`, halting exactly when it failed and
     * the stage halts on failure; none after a halting one (but at the end, when halts no longer count).
     */
    stageFits: ({ context, event }) => {
      assertEvent(event, 'stage.checked');
      return stageCheckFits(context, event);
    },
    sweepFits: ({ context, event }) => {
      assertEvent(event, 'stages.swept');
      return event.round === context.round && event.after === context.sweep?.after;
    },
    afterHandoff: ({ context }) => context.sweep?.after === 'handoff',
    halted: ({ context }) => context.halted !== null,
    /** A snapshot is due after this round's stage checks (or after the round, with no stages). */
    snapshotDue: ({ context }) => snapshotReason(context) !== null,
    snapshotFits: ({ context, event }) => {
      assertEvent(event, ['workspace.snapshotted', 'snapshot.skipped']);
      return event.round === context.round && event.reason === context.snapshot?.reason;
    },
    /** The next loss, and the rules allow restoring it. */
    lossWithinBudget: ({ context, event }) => {
      assertEvent(event, 'sandbox.lost');
      return event.attempt === context.losses + 1 && context.losses < context.rules.sandboxRetries;
    },
    /** The next loss (past the budget). */
    lossCounted: ({ context, event }) => {
      assertEvent(event, 'sandbox.lost');
      return event.attempt === context.losses + 1;
    },
    resumedFits: ({ context, event }) => {
      assertEvent(event, 'episode.resumed');
      return (event.reason ?? 'worker_lost') === context.restore?.reason;
    },
    outcomeIsDone: ({ context }) => context.outcome === 'done',
    outcomeIsFail: ({ context }) => context.outcome === 'fail',
    /** The terminal record agrees with the machine. */
    endFits: ({ context, event }) => {
      assertEvent(event, 'episode.ended');
      return (
        event.status === context.status && event.rounds === context.round && event.score === endScore(context)
      );
    },
  },
}).createMachine({
  id: 'episode',
  initial: 'idle',
  context: emptyContext,
  states: {
    idle: {
      on: { 'episode.started': { guard: 'knownRules', target: 'running', actions: 'start' } },
    },
    running: {
      initial: 'live',
      on: {
        'infra.failed': { target: 'infra_error', actions: ['infra'] },
        'sandbox.lost': [
          {
            guard: 'lossWithinBudget',
            target: '.restoring',
            actions: ['lost', { type: 'restoreFor', params: { reason: 'sandbox_lost' } }],
          },
          { guard: 'lossCounted', target: 'infra_error', actions: ['lost', 'lostForGood'] },
        ],
        'episode.claimed': {
          target: '.restoring',
          actions: ['stamp', { type: 'restoreFor', params: { reason: 'worker_lost' } }],
        },
      },
      states: {
        live: {
          initial: 'provisioning',
          states: {
            /** Where a restore returns to: the state (and sub-state) the fault interrupted. */
            hist: { type: 'history', history: 'deep' },
            provisioning: {
              entry: phase('provisioning'),
              on: { 'sandbox.provisioned': { target: 'observing', actions: ['stamp', 'provisioned'] } },
            },
            observing: {
              entry: phase('observing'),
              on: {
                'observation.recorded': [
                  {
                    guard: and(['observationFits', 'clockOut']),
                    target: 'verifying',
                    actions: ['stamp', 'outcomeClock'],
                  },
                  { guard: 'observationFits', target: 'deciding', actions: ['observed'] },
                ],
              },
            },
            deciding: {
              entry: phase('deciding'),
              on: {
                'agent.retried': { guard: 'decisionFits', actions: 'stamp' },
                'agent.decided': [
                  {
                    guard: and(['decisionFits', 'clockOut']),
                    target: 'verifying',
                    actions: ['decided', 'outcomeClock'],
                  },
                  {
                    guard: and(['decisionFits', decisionIs('done')]),
                    target: 'verifying',
                    actions: ['decided', 'outcomeDone'],
                  },
                  {
                    guard: and(['decisionFits', decisionIs('fail')]),
                    target: 'verifying',
                    actions: ['decided', 'outcomeFail'],
                  },
                  {
                    guard: and(['decisionFits', decisionIs('act')]),
                    target: 'acting',
                    actions: ['decided'],
                  },
                  // An invalid output spends its round; the next observation tells the agent what was wrong.
                  { guard: 'decisionFits', target: 'roundEnd', actions: ['decided'] },
                ],
              },
            },
            acting: {
              entry: phase('acting'),
              on: {
                'action.started': { guard: 'startFits', actions: 'stamp' },
                'artifact.handed_off': { guard: 'handoffFits', actions: ['handedOff'] },
                'action.executed': [
                  // A hand-off's stages are checked at once; a halting failure stops the round there.
                  {
                    guard: and(['resultFits', 'sweepsAfterHandoff']),
                    target: 'checking_stages',
                    actions: ['actionDone', sweepFrom('handoff')],
                  },
                  { guard: and(['resultFits', 'moreActions']), actions: ['actionDone'] },
                  { guard: 'resultFits', target: 'roundEnd', actions: ['actionDone'] },
                ],
              },
            },
            /** After a round (transient): the limits, then stage checks, then a due snapshot. */
            roundEnd: {
              always: [
                { guard: 'clockOutNow', target: 'verifying', actions: 'outcomeClock' },
                { guard: not('roundsLeft'), target: 'verifying', actions: 'outcomeRounds' },
                { guard: 'hasStages', target: 'checking_stages', actions: sweepFrom('round') },
                { guard: 'snapshotDue', target: 'snapshotting', actions: 'snapshotFor' },
                { target: 'observing' },
              ],
            },
            checking_stages: {
              entry: phase('checking_stages'),
              on: {
                'stage.checked': { guard: 'stageFits', actions: ['staged'] },
                'stages.swept': [
                  {
                    guard: and(['sweepFits', 'halted']),
                    target: 'verifying',
                    actions: ['stamp', 'stageHalted', 'swept'],
                  },
                  {
                    guard: and(['sweepFits', 'afterHandoff', 'actionsLeft']),
                    target: 'acting',
                    actions: ['stamp', 'swept'],
                  },
                  {
                    guard: and(['sweepFits', 'afterHandoff']),
                    target: 'roundEnd',
                    actions: ['stamp', 'swept'],
                  },
                  {
                    guard: and(['sweepFits', 'snapshotDue']),
                    target: 'snapshotting',
                    actions: ['stamp', 'snapshotFor', 'swept'],
                  },
                  { guard: 'sweepFits', target: 'observing', actions: ['stamp', 'swept'] },
                ],
              },
            },
            snapshotting: {
              entry: phase('snapshotting'),
              on: {
                'workspace.snapshotted': {
                  guard: 'snapshotFits',
                  target: 'observing',
                  actions: ['snapshotted'],
                },
                'snapshot.skipped': {
                  guard: 'snapshotFits',
                  target: 'observing',
                  actions: ['snapshotted'],
                },
              },
            },
            verifying: {
              entry: phase('verifying'),
              initial: 'stages',
              states: {
                /** Stages made in the last round are checked too (a halt no longer matters here). */
                stages: {
                  entry: sweepFrom('final'),
                  exit: 'swept',
                  always: { guard: not('hasStages'), target: 'scoring' },
                  on: {
                    'stage.checked': { guard: 'stageFits', actions: ['staged'] },
                    'stages.swept': { guard: 'sweepFits', target: 'scoring', actions: 'stamp' },
                  },
                },
                scoring: {
                  on: {
                    'verification.completed': [
                      { guard: 'outcomeIsDone', target: '#episode.done', actions: ['verified'] },
                      { guard: 'outcomeIsFail', target: '#episode.failed', actions: ['verified'] },
                      { target: '#episode.limit', actions: ['verified'] },
                    ],
                  },
                },
              },
            },
          },
        },
        /** Rebuilding the sandboxes (after a loss or a take-over); then back where the fault struck. */
        restoring: {
          on: {
            'episode.resumed': { guard: 'resumedFits', target: 'live.hist', actions: ['resumed'] },
          },
        },
      },
    },
    // Terminal: the status is set; the next event must be the terminal record agreeing with it (a
    // worker taking over before it was written just writes it).
    done: terminal('done'),
    failed: terminal('failed'),
    limit: terminal('limit'),
    infra_error: terminal('infra_error'),
    /** `episode.ended` is recorded: nothing more happens. */
    ended: { type: 'final' },
  },
});

export type EpisodeMachine = typeof episodeMachine;
