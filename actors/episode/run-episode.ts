/**
 * Runs one episode as a loop: take the effect the machine's snapshot waits for, carry it out, append
 * each outcome event to the log, and feed the stored event back to the machine. Every episode rule
 * is the machine's (machines/episode.machine.ts); an event it would not accept is never written.
 * Containers are removed on every exit path.
 */
import { hostname } from 'node:os';
import { isRetryable, retry, toErrorData } from '../../core/index.js';
import {
  accepts,
  describeEffect,
  effectOf,
  EventRejectedError,
  fold,
  initialSnapshot,
  isCurrent,
  MachineError,
  stateName,
  step,
  type EpisodeSnapshot,
  type FoldedSnapshot,
} from '../../machines/index.js';
import {
  decodeEvent,
  encodeEvent,
  externalize,
  isConnectionClosed,
  isLogConflict,
  isTransient,
} from '../../streams/index.js';
import { EVENT_VERSION, type EpisodeEvent, type EventDraft } from '../../streams/index.js';
import type { LoadedTask } from '../../tasks/index.js';
import { isContainerGone, type Sandbox } from '../sandbox/index.js';
import { endSpan, startSpan } from '../telemetry.js';
import { attribute } from './attribute.js';
import { EpisodeError, isRecordingError, RecordingError } from './errors.js';
import { endRound, perform, type RunState } from './perform.js';
import { redactDraft } from './redact-event.js';
import { agentUsage, haltedStage, resultOf } from './result.js';
import type { EffectScope } from './scope.js';
import { snapshotBytes } from './snapshot.js';
import type { EpisodeDeps, EpisodeOptions, EpisodeResult } from './ports.js';

/** Retries an append or a blob put through a short NATS outage (RETRY_BUDGET, ≈20 s); never a conflict. */
const appendRetry = <T>(fn: () => Promise<T>): Promise<T> =>
  retry(fn, {
    retryable: (e) => !isLogConflict(e) && (isRetryable(e) || isTransient(e) || isConnectionClosed(e)),
  });

function describeAction(e: EpisodeEvent): string | null {
  if (e.type === 'action.executed')
    return e.action.type === 'shell' ? e.action.command.split('\n')[0]!.slice(0, 60) : e.action.type;
  if (e.type === 'agent.decided' && e.decision.kind !== 'act') return e.decision.kind.toUpperCase();
  return null;
}

/** Folds a prior log for a resume; only logs of the current machine can be continued. */
function foldPrior(prior: readonly EpisodeEvent[]): FoldedSnapshot {
  const snap = fold(prior);
  if (!isCurrent(snap) && prior.at(-1)?.type !== 'episode.ended')
    throw new MachineError(
      'MACHINE_VERSION_UNKNOWN',
      'this episode was started under machine rules version 1 (an earlier engiloop) and cannot be continued by this build: finish it with that version, or run it again',
    );
  return snap;
}

/** Runs `lt` once with `opts.agent`; never throws for agent or infrastructure faults. */
export async function runEpisode(
  lt: LoadedTask,
  deps: EpisodeDeps,
  opts: EpisodeOptions,
): Promise<EpisodeResult> {
  const now = deps.now ?? Date.now;
  const t0 = now();
  const { task } = lt;
  const sandboxes = new Map<string, Sandbox>();
  const span = startSpan('episode', {
    'engiloop.task': task.id,
    'engiloop.episode': opts.episodeId,
    'engiloop.agent': opts.agent.name,
  });
  const prior = opts.prior ?? [];
  // A resumed episode's budget starts from the snapshots it already stored.
  const stored = { bytes: snapshotBytes(prior), digests: new Set<string>() };
  const scope: EffectScope = { lt, deps, opts, sandboxes, span, stored };
  /** The snapshot of an episode that had already ended (possibly under machine 1). */
  let over: FoldedSnapshot | null = null;
  const run: RunState = {
    snap: initialSnapshot(),
    events: [...prior],
    digest: null,
    emit: async () => {},
  };
  let count = prior.length;
  let lastAction: string | null = null;
  let logError: unknown = null;

  const progress = () =>
    opts.onProgress?.({
      episodeId: opts.episodeId,
      taskId: task.id,
      state: stateName(run.snap),
      round: run.snap.context.round,
      maxRounds: task.limits.max_rounds,
      lastAction,
      elapsedMs: now() - t0,
    });

  const secrets = opts.agent.secrets ?? [];
  const sinkP = Promise.resolve(deps.openLog(opts.episodeId));
  run.emit = async (unredacted: EventDraft): Promise<void> => {
    // Provider keys never enter the log, nor (through the fold) the machine, the agent or the sandbox.
    const draft = redactDraft(unredacted, secrets);
    // Large outputs go to the object store; what the machine sees is exactly what a later process
    // decodes from the log.
    const external = await appendRetry(() =>
      externalize({ ...draft, v: EVENT_VERSION, at: now() } as EpisodeEvent, deps.blobs),
    );
    const event = decodeEvent(encodeEvent(external));
    // The machine checks the event before it is written: one it would not accept is a harness bug.
    if (!accepts(run.snap, event))
      throw new EventRejectedError(
        run.snap.context.round,
        null,
        event.type,
        stateName(run.snap),
        describeEffect(effectOf(run.snap)),
      );
    const sink = await sinkP;
    try {
      // A retried append reuses its message id, so one that was in fact stored is not stored twice.
      await appendRetry(() => sink.append(event));
    } catch (e) {
      // LOG_CONFLICT: another worker holds the episode now; this one must stop without writing.
      throw new RecordingError(
        isLogConflict(e) ? 'LOG_CONFLICT' : 'LOG_WRITE_FAILED',
        `cannot append to episode ${opts.episodeId}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    count++;
    run.events.push(event);
    run.snap = step(run.snap, event);
    lastAction = describeAction(event) ?? lastAction;
    progress();
  };

  /** The event recording a fault of `effect`, or null when the machine would not take one now. */
  const faultEvent = (e: unknown): EventDraft | null => {
    const during = stateName(run.snap);
    // Whatever an interrupted effect threw, the cause is the interruption.
    const draft: EventDraft = opts.signal?.aborted
      ? {
          type: 'infra.failed',
          error: { code: 'ABORTED', message: `the run was interrupted during ${during}`, retryable: true },
          during,
        }
      : isContainerGone(e)
        ? { type: 'sandbox.lost', error: toErrorData(e), during, attempt: run.snap.context.losses + 1 }
        : { type: 'infra.failed', error: toErrorData(e), during };
    return accepts(run.snap, { ...draft, v: EVENT_VERSION, at: now() } as EpisodeEvent) ? draft : null;
  };

  try {
    const folded = prior.length ? foldPrior(prior) : initialSnapshot();
    const last = prior.at(-1);
    if (last?.type === 'episode.ended') {
      over = folded; // already over: nothing to do
      run.digest = last.snapshotDigest;
    } else {
      run.snap = folded as EpisodeSnapshot;
      // A worker taking over: the machine restores the sandboxes before going on.
      if (prior.length) await run.emit({ type: 'episode.claimed', worker: `${hostname()}:${process.pid}` });
      for (let effect = effectOf(run.snap); effect; effect = effectOf(run.snap)) {
        const before = count;
        try {
          if (opts.signal?.aborted && effect.type !== 'finish')
            throw new EpisodeError('ABORTED', 'the run was interrupted');
          await perform(effect, scope, run);
          if (count === before)
            throw new MachineError('NO_EFFECT', `effect ${effect.type} recorded no outcome`);
        } catch (e) {
          if (isRecordingError(e)) throw e;
          const fault = faultEvent(e);
          if (!fault) throw e; // finishing failed: nothing more can be recorded
          if (fault.type === 'sandbox.lost') {
            // The restore the machine asks for starts from fresh sandboxes.
            await Promise.allSettled([...sandboxes.values()].map((sb) => sb.close()));
            sandboxes.clear();
          }
          await run.emit(fault);
        }
      }
    }
  } catch (e) {
    logError = e;
  } finally {
    endRound(run);
    await Promise.allSettled([...sandboxes.values()].map((sb) => sb.close()));
  }

  const result = resultOf(over ?? run.snap, {
    episodeId: opts.episodeId,
    taskId: task.id,
    agent: opts.agent.name,
    // A resumed episode's duration runs from its first start, downtime included.
    durationMs: now() - (prior[0]?.at ?? t0),
    events: count,
    snapshotDigest: run.digest,
    recordingError: logError ? toErrorData(logError) : null,
    usage: agentUsage(run.events),
    attribution: attribute(run.events),
    haltedAt: haltedStage(run.events),
  });
  span.setAttributes({ 'engiloop.status': result.status, 'engiloop.rounds': result.rounds });
  endSpan(span, logError ?? undefined);
  return result;
}
