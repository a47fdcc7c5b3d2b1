/**
 * Runs one episode as a loop: take the effect the machine's snapshot waits for, carry it out, append
 * each outcome event to the log, and feed the stored event back to the machine. Every episode rule
 * is the machine's (machines/episode.machine.ts); an event it would not accept is never written.
 * Containers are removed on every exit path.
 */
import { hostname } from 'node:os';
import { toErrorData } from '../../core/index.js';
import {
  effectOf,
  fold,
  initialSnapshot,
  isCurrent,
  MachineError,
  stateName,
  type EpisodeSnapshot,
  type FoldedSnapshot,
} from '../../machines/index.js';
import type { EpisodeEvent } from '../../streams/index.js';
import type { LoadedTask } from '../../tasks/index.js';
import type { Sandbox } from '../sandbox/index.js';
import { endEpisodeSpan, recordFailureModes, startEpisodeSpan } from '../telemetry.js';
import { attribute } from './attribute.js';
import { EpisodeError, isRecordingError } from './errors.js';
import { endRound, faultOf, perform, type RunState } from './perform.js';
import { describeAction, recorder } from './recorder.js';
import { agentUsage, haltedStage, resultOf } from './result.js';
import type { EffectScope } from './scope.js';
import { snapshotBytes } from './snapshot.js';
import type { EpisodeDeps, EpisodeOptions, EpisodeResult } from './ports.js';

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
  const span = startEpisodeSpan(task.id, opts.episodeId, opts.agent);
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

  run.emit = recorder({
    deps,
    opts,
    run,
    now,
    appended: (e) => {
      count++;
      lastAction = describeAction(e) ?? lastAction;
      progress();
    },
  });

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
          const fault = faultOf(e, run, opts.signal?.aborted === true, now());
          if (!fault) throw e; // finishing failed: nothing more can be recorded
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
    parent: prior[0]?.type === 'episode.started' ? (prior[0].parent ?? null) : null,
  });
  if (deps.failureModes) recordFailureModes(span, [...deps.failureModes(run.events)]);
  endEpisodeSpan(span, result, logError ?? undefined);
  return result;
}
