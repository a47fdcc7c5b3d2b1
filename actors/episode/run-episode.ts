/**
 * Runs one episode: the machine decides, the effects act, and every outcome is appended to the
 * log before the machine sees it. Containers are removed on every exit path.
 */
import type { Span } from '@opentelemetry/api';
import {
  EngiloopError,
  fold,
  hasCode,
  initialSnapshot,
  stateName,
  step,
  toErrorData,
  type Effect,
  type EpisodeSnapshot,
} from '../../machines/index.js';
import { decodeEvent, encodeEvent, externalize, isTransient } from '../../streams/index.js';
import { EVENT_VERSION, type EpisodeEvent, type EventDraft } from '../../streams/events.js';
import type { LoadedTask } from '../../tasks/index.js';
import type { Sandbox } from '../sandbox/types.js';
import { endSpan, startSpan } from '../telemetry.js';
import { snapshotDigest } from './digest.js';
import * as fx from './effects.js';
import { RecordingError } from './errors.js';
import { handoff } from './handoff.js';
import { redactDraft } from './redact-event.js';
import { pendingEffect, restore } from './restore.js';
import { latestSnapshot, snapshotBytes, snapshotDue, takeSnapshot } from './snapshot.js';
import { checkStages } from './stages.js';
import { latestStages } from './stage-list.js';
import { attribute } from './attribute.js';
import { notRun } from './observe.js';
import { agentUsage, haltedStage, resultOf } from './result.js';
import type { EpisodeDeps, EpisodeOptions, EpisodeResult } from './ports.js';

/**
 * Retries an append through a short NATS outage (a restart, a leader election): retryable errors
 * only, with backoff, for about 20 s in all. A conflict is never retried.
 */
async function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      const retryable =
        (e as { retryable?: unknown }).retryable === true ||
        isTransient(e) ||
        /closed/i.test(String((e as Error).message));
      if (!retryable || hasCode(e, 'LOG_CONFLICT') || attempt >= 8) throw e;
      await new Promise((r) => setTimeout(r, Math.min(4_000, 250 * 2 ** attempt)));
    }
  }
}

function describeAction(e: EpisodeEvent): string | null {
  if (e.type === 'action.executed')
    return e.action.type === 'shell' ? e.action.command.split('\n')[0]!.slice(0, 60) : e.action.type;
  if (e.type === 'agent.decided' && e.decision.kind !== 'act') return e.decision.kind.toUpperCase();
  return null;
}

/** Images recorded with the latest observation (what the agent is about to decide on). */
function shownImages(events: readonly EpisodeEvent[]): fx.StoredImage[] {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === 'observation.recorded') return e.images ?? [];
  }
  return [];
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
  const scope: fx.EffectScope = { lt, deps, opts, sandboxes, span, stored };
  let snap: EpisodeSnapshot = prior.length ? fold(prior) : initialSnapshot();
  let count = prior.length;
  /** Every event of the episode so far (prior ones first): stages, snapshots and restores read it. */
  const events: EpisodeEvent[] = [...prior];
  const gui = task.interface === 'gui';
  // A GUI app's state lives in its memory, not in files: its sandboxes are restored by re-running
  // every action from the start, so snapshots would not be used (see restore.ts).
  const every = gui ? 0 : (opts.snapshotEvery ?? task.limits.snapshot_every ?? 10);
  let losses = prior.filter((e) => e.type === 'sandbox.lost').length;
  let lastAction: string | null = null;
  let roundSpan: Span | undefined;
  let logError: unknown = null;
  let digest: string | null = null;
  const queue: Effect[] = [];

  const progress = () =>
    opts.onProgress?.({
      episodeId: opts.episodeId,
      taskId: task.id,
      state: stateName(snap),
      round: snap.context.round,
      maxRounds: task.limits.max_rounds,
      lastAction,
      elapsedMs: now() - t0,
    });

  const secrets = opts.agent.secrets ?? [];
  const emit = async (unredacted: EventDraft): Promise<void> => {
    // Provider keys never enter the log, nor (through the fold) the machine, the agent or the sandbox.
    const draft = redactDraft(unredacted, secrets);
    // Large outputs go to the object store; what the machine sees is exactly what a later process
    // decodes from the log.
    const stored = await withRetry(() =>
      externalize({ ...draft, v: EVENT_VERSION, at: now() } as EpisodeEvent, deps.blobs),
    );
    const event = decodeEvent(encodeEvent(stored));
    const sink = await sinkP;
    try {
      // A retried append reuses its message id, so one that was in fact stored is not stored twice.
      await withRetry(() => sink.append(event));
    } catch (e) {
      // LOG_CONFLICT: another worker holds the episode now; this one must stop without writing.
      throw new RecordingError(
        hasCode(e, 'LOG_CONFLICT') ? 'LOG_CONFLICT' : 'LOG_WRITE_FAILED',
        `cannot append to episode ${opts.episodeId}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    count++;
    events.push(event);
    const r = step(snap, event);
    snap = r.snapshot;
    queue.push(...r.effects);
    lastAction = describeAction(event) ?? lastAction;
    progress();
  };
  const sinkP = Promise.resolve(deps.openLog(opts.episodeId));

  const run = async (effect: Effect): Promise<void> => {
    const ctx = snap.context;
    switch (effect) {
      case 'provision':
        return emit(await fx.provision(scope));
      case 'observe': {
        if (ctx.round > 0) {
          // After a round's actions: stages whose artifacts appeared, then a snapshot if one is due.
          const checked = await checkStages(scope, ctx.round, events, emit);
          if (stateName(snap) !== 'observing') return; // a stage halted the episode
          if (!gui && checked > 0 && latestSnapshot(events)?.event.round !== ctx.round)
            await emit(await takeSnapshot(scope, ctx.round, 'stage'));
          else if (snapshotDue(events, ctx.round, every))
            await emit(await takeSnapshot(scope, ctx.round, 'interval'));
        }
        if (roundSpan) endSpan(roundSpan);
        roundSpan = startSpan('round', { 'engiloop.task': task.id, 'engiloop.round': ctx.round + 1 }, span);
        return emit(await fx.observe(scope, snap.context));
      }
      case 'decide':
        return emit(
          await fx.decide(
            scope,
            ctx,
            opts.agent,
            roundSpan ?? span,
            snapshotDigest(snap),
            shownImages(events),
            emit,
          ),
        );
      case 'execute':
        while (stateName(snap) === 'acting' && snap.context.executed < snap.context.pending.length) {
          const index = snap.context.executed;
          const action = snap.context.pending[index]!;
          await emit({ type: 'action.started', round: snap.context.round, index, action });
          // GUI turns stop at the first action that fails; the rest are recorded as skipped.
          const failed =
            gui &&
            events.some(
              (e) =>
                e.type === 'action.executed' && e.round === snap.context.round && e.result.exitCode !== 0,
            );
          const round = snap.context.round;
          if (action.type === 'handoff' && !failed) {
            const t = performance.now();
            const h = await handoff(scope, action);
            if (h.info)
              await emit({
                type: 'artifact.handed_off',
                round,
                index,
                ...h.info,
                durationMs: Math.round(performance.now() - t),
              });
            await emit({ type: 'action.executed', round, index, action, result: h.result });
            // Stage checks run on intermediate artifacts as they are handed off.
            if (h.info) await checkStages(scope, round, events, emit);
            continue;
          }
          const result = failed
            ? notRun(`skipped: an earlier action of this turn failed`, true)
            : await fx.execute(scope, action, round, roundSpan ?? span);
          await emit({ type: 'action.executed', round, index, action, result });
        }
        return;
      case 'verify':
        if (roundSpan) endSpan(roundSpan);
        roundSpan = undefined;
        // Stages made in the last round are checked too (a halt no longer matters here).
        await checkStages(scope, ctx.round, events, emit);
        return emit(await fx.verify(scope, latestStages(events)));
      case 'finish':
        digest = snapshotDigest(snap);
        return emit({
          type: 'episode.ended',
          status: snap.context.status ?? 'infra_error',
          score: snap.context.status === 'infra_error' ? null : (snap.context.verification?.score ?? 0),
          rounds: snap.context.round,
          snapshotDigest: digest,
        });
    }
  };

  /**
   * The retry policy for a sandbox lost under the episode (CONTAINER_GONE): up to
   * `limits.sandbox_retries` times, record `sandbox.lost`, restore the sandboxes from the latest
   * snapshot plus re-execution, and queue the effect that was cut short again. Returns null when
   * restored, else the fault to record as infra_error.
   */
  const recoverSandbox = async (e: unknown): Promise<unknown> => {
    if (opts.signal?.aborted || !hasCode(e, 'CONTAINER_GONE') || losses >= task.limits.sandbox_retries)
      return e;
    losses++;
    await emit({ type: 'sandbox.lost', error: toErrorData(e), during: stateName(snap), attempt: losses });
    try {
      await Promise.allSettled([...sandboxes.values()].map((sb) => sb.close()));
      sandboxes.clear();
      await emit(await restore(scope, events, snap, 'sandbox_lost'));
    } catch (e2) {
      if (e2 instanceof RecordingError) throw e2;
      return e2;
    }
    queue.length = 0;
    queue.push(pendingEffect(stateName(snap)));
    return null;
  };

  try {
    const last = prior.at(-1);
    if (last?.type === 'episode.ended')
      digest = last.snapshotDigest; // already over: nothing to do
    else if (prior.length > 0) {
      await emit(await restore(scope, prior, snap, 'worker_lost'));
      queue.push(pendingEffect(stateName(snap)));
    } else
      await emit({
        type: 'episode.started',
        episodeId: opts.episodeId,
        runId: opts.runId,
        task,
        agent: opts.agent.name,
      });
    while (queue.length > 0) {
      const effect = queue.shift()!;
      try {
        if (opts.signal?.aborted && effect !== 'finish')
          throw new EngiloopError('ABORTED', 'the run was interrupted');
        await run(effect);
      } catch (e) {
        if (e instanceof RecordingError) throw e;
        if (stateName(snap) === 'infra_error' || snap.status === 'done') throw e;
        const fault = await recoverSandbox(e);
        if (fault === null) continue;
        // Whatever an interrupted effect threw, the cause is the interruption.
        const data = opts.signal?.aborted
          ? { code: 'ABORTED', message: `the run was interrupted during ${stateName(snap)}`, retryable: true }
          : toErrorData(fault);
        await emit({ type: 'infra.failed', error: data, during: stateName(snap) });
      }
    }
  } catch (e) {
    logError = e;
  } finally {
    if (roundSpan) endSpan(roundSpan);
    await Promise.allSettled([...sandboxes.values()].map((sb) => sb.close()));
  }

  const result = resultOf(snap, {
    episodeId: opts.episodeId,
    taskId: task.id,
    agent: opts.agent.name,
    // A resumed episode's duration runs from its first start, downtime included.
    durationMs: now() - (prior[0]?.at ?? t0),
    events: count,
    snapshotDigest: digest,
    recordingError: logError ? toErrorData(logError) : null,
    usage: agentUsage(events),
    attribution: attribute(events),
    haltedAt: haltedStage(events),
  });
  span.setAttributes({ 'engiloop.status': result.status, 'engiloop.rounds': result.rounds });
  endSpan(span, logError ?? undefined);
  return result;
}
