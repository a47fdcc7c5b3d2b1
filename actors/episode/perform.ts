/**
 * Carries out one effect the machine asked for (machines/effects.ts), recording its outcome through
 * `run.emit`. Nothing here decides what comes next: which effect, with which parameters, is the
 * machine's; an effect this switch does not know is an error.
 */
import type { Span } from '@opentelemetry/api';
import { toErrorData } from '../../core/index.js';
import {
  accepts,
  CURRENT_FLAGS,
  MACHINE_VERSION,
  MachineError,
  rulesFor,
  stateName,
  type Effect,
} from '../../machines/index.js';
import type { EpisodeSnapshot } from '../../machines/index.js';
import { EVENT_VERSION, type EpisodeEvent, type EventDraft } from '../../streams/index.js';
import { actionFromRecord, defaultSandbox, taskRecord, type Action } from '../../tasks/index.js';
import { isContainerGone } from '../sandbox/index.js';
import { endSpan, endToolSpan, recordStageChecks, startSpan, startToolSpan } from '../telemetry.js';
import { snapshotDigest } from './digest.js';
import * as fx from './effects.js';
import { handoff } from './handoff.js';
import { notRun } from './observe.js';
import { resultRecord } from './records.js';
import { restore } from './restore.js';
import type { EffectScope } from './scope.js';
import { takeSnapshot } from './snapshot.js';
import { checkStages } from './stages.js';
import { latestStages } from './stage-list.js';

/** What the loop and the effects share: the machine's snapshot, the log so far, and its writer. */
export interface RunState {
  snap: EpisodeSnapshot;
  /** Every event of the episode so far (prior ones first). */
  events: EpisodeEvent[];
  /** Digest recorded in `episode.ended`, once written. */
  digest: string | null;
  /** Appends one outcome and feeds it to the machine. */
  emit: (d: EventDraft) => Promise<void>;
  /** The span of the round under way. */
  roundSpan?: Span;
}

/** Images recorded with the latest observation (what the agent is about to decide on). */
function shownImages(events: readonly EpisodeEvent[]): fx.StoredImage[] {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === 'observation.recorded') return e.images ?? [];
  }
  return [];
}

/** The span of one action (`execute_tool {type}`; records nothing without the GenAI opt-in). */
function toolSpan(s: EffectScope, run: RunState, action: Action, round: number, index: number): Span {
  const at = { taskId: s.lt.task.id, round, index, defaultSandbox: defaultSandbox(s.lt.task) };
  return startToolSpan(action, at, run.roundSpan ?? s.span);
}

/** Ends the span of the round under way, if any. */
export function endRound(run: RunState): void {
  if (run.roundSpan) endSpan(run.roundSpan);
  run.roundSpan = undefined;
}

/**
 * The event recording that an effect failed with `e`, or null when the machine would not take one
 * now (a failure while finishing). A lost container is `sandbox.lost` (the machine decides whether
 * to restore); whatever an interrupted effect threw, the cause is the interruption.
 */
export function faultOf(e: unknown, run: RunState, aborted: boolean, at: number): EventDraft | null {
  const during = stateName(run.snap);
  const draft: EventDraft = aborted
    ? {
        type: 'infra.failed',
        error: { code: 'ABORTED', message: `the run was interrupted during ${during}`, retryable: true },
        during,
      }
    : isContainerGone(e)
      ? { type: 'sandbox.lost', error: toErrorData(e), during, attempt: run.snap.context.losses + 1 }
      : { type: 'infra.failed', error: toErrorData(e), during };
  return accepts(run.snap, { ...draft, v: EVENT_VERSION, at } as EpisodeEvent) ? draft : null;
}

/** Carries out `effect`, recording its outcome events. */
export async function perform(effect: Effect, s: EffectScope, run: RunState): Promise<void> {
  const { task } = s.lt;
  switch (effect.type) {
    case 'start':
      return run.emit({
        type: 'episode.started',
        episodeId: s.opts.episodeId,
        runId: s.opts.runId,
        machine: MACHINE_VERSION,
        flags: [...CURRENT_FLAGS],
        rules: rulesFor(
          task,
          s.opts.snapshotEvery === undefined ? {} : { snapshotEvery: s.opts.snapshotEvery },
        ),
        task: taskRecord(task),
        agent: s.opts.agent.name,
      });
    case 'provision':
      return run.emit(await fx.provision(s));
    case 'observe':
      endRound(run);
      run.roundSpan = startSpan(
        'round',
        { 'engiloop.task': task.id, 'engiloop.round': effect.round },
        s.span,
      );
      return run.emit(await fx.observe(s, run.snap.context));
    case 'decide':
      return run.emit(
        await fx.decide(
          s,
          run.snap.context,
          s.opts.agent,
          run.roundSpan ?? s.span,
          snapshotDigest(run.snap),
          shownImages(run.events),
          run.emit,
        ),
      );
    case 'execute': {
      const { round, index, action } = effect;
      await run.emit({ type: 'action.started', round, index, action });
      const a = actionFromRecord(action);
      const span = toolSpan(s, run, a, round, index);
      const r = await fx.execute(s, a, round, run.roundSpan ?? s.span).catch((e: unknown) => {
        endSpan(span, e);
        throw e;
      });
      endToolSpan(span, r);
      return run.emit({ type: 'action.executed', round, index, action, result: resultRecord(r) });
    }
    case 'skip': {
      const { round, index, action } = effect;
      await run.emit({ type: 'action.started', round, index, action });
      const result = resultRecord(notRun('skipped: an earlier action of this turn failed', true));
      return run.emit({ type: 'action.executed', round, index, action, result });
    }
    case 'handoff': {
      const { round, index, action } = effect;
      await run.emit({ type: 'action.started', round, index, action });
      const t = performance.now();
      const span = toolSpan(s, run, actionFromRecord(action), round, index);
      const h = await handoff(s, action).catch((e: unknown) => {
        endSpan(span, e);
        throw e;
      });
      endToolSpan(span, h.result, h.info ?? undefined);
      if (h.info)
        await run.emit({
          type: 'artifact.handed_off',
          round,
          index,
          ...h.info,
          durationMs: Math.round(performance.now() - t),
        });
      return run.emit({ type: 'action.executed', round, index, action, result: resultRecord(h.result) });
    }
    case 'checkStages': {
      if (effect.after === 'final') endRound(run);
      const from = run.events.length;
      await checkStages(s, effect.round, run.events, run.emit);
      recordStageChecks(s.span, run.events.slice(from));
      return run.emit({ type: 'stages.swept', round: effect.round, after: effect.after });
    }
    case 'snapshot':
      return run.emit(await takeSnapshot(s, effect.round, effect.reason));
    case 'restore':
      return run.emit(await restore(s, run.events, effect));
    case 'verify':
      endRound(run);
      return run.emit(await fx.verify(s, latestStages(run.events)));
    case 'finish':
      run.digest = snapshotDigest(run.snap);
      return run.emit({
        type: 'episode.ended',
        status: effect.status,
        score: effect.score,
        rounds: effect.rounds,
        snapshotDigest: run.digest,
      });
    default: {
      const unknown: never = effect;
      throw new MachineError('NO_EFFECT', `the runner does not know effect ${JSON.stringify(unknown)}`);
    }
  }
}
