/**
 * How an episode's events are written: redacted, large outputs moved to the object store, checked
 * by the machine, appended (retried through a short NATS outage, fenced against a second writer),
 * and only then fed to the machine — so what the machine sees is exactly what a later fold reads.
 */
import { isRetryable, retry } from '../../core/index.js';
import { step } from '../../machines/index.js';
import {
  decodeEvent,
  encodeEvent,
  EVENT_VERSION,
  externalize,
  isConnectionClosed,
  isLogConflict,
  isTransient,
  type EpisodeEvent,
  type EventDraft,
} from '../../streams/index.js';
import { RecordingError } from './errors.js';
import type { RunState } from './perform.js';
import { redactDraft } from './redact-event.js';
import type { EpisodeDeps, EpisodeOptions } from './ports.js';

/** Retries an append or a blob put through a short NATS outage (RETRY_BUDGET, ≈20 s); never a conflict. */
const appendRetry = <T>(fn: () => Promise<T>): Promise<T> =>
  retry(fn, {
    retryable: (e) => !isLogConflict(e) && (isRetryable(e) || isTransient(e) || isConnectionClosed(e)),
  });

/** The last action or decision an event records, in a few words (for progress lines). */
export function describeAction(e: EpisodeEvent): string | null {
  if (e.type === 'action.executed')
    return e.action.type === 'shell' ? e.action.command.split('\n')[0]!.slice(0, 60) : e.action.type;
  if (e.type === 'agent.decided' && e.decision.kind !== 'act') return e.decision.kind.toUpperCase();
  return null;
}

/**
 * The `emit` of one episode: records a draft and moves `run` on by it.
 * @throws EventRejectedError for an event the machine would not accept (a harness bug; nothing is
 *   written), RecordingError `LOG_CONFLICT` / `LOG_WRITE_FAILED` when the append fails.
 */
export function recorder(o: {
  deps: EpisodeDeps;
  opts: EpisodeOptions;
  run: RunState;
  now: () => number;
  /** Called after each event is appended and applied. */
  appended: (e: EpisodeEvent) => void;
}): (d: EventDraft) => Promise<void> {
  const { deps, opts, run, now } = o;
  const secrets = opts.agent.secrets ?? [];
  const sinkP = Promise.resolve(deps.openLog(opts.episodeId));
  return async (unredacted) => {
    // Provider keys never enter the log, nor (through the fold) the machine, the agent or the sandbox.
    const draft = redactDraft(unredacted, secrets);
    const external = await appendRetry(() =>
      externalize({ ...draft, v: EVENT_VERSION, at: now() } as EpisodeEvent, deps.blobs),
    );
    const event = decodeEvent(encodeEvent(external));
    // The machine takes the event before it is written (throwing for one it would not accept), and
    // its new state is kept only once the append succeeded.
    const next = step(run.snap, event);
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
    run.events.push(event);
    run.snap = next;
    o.appended(event);
  };
}
