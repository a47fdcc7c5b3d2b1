/**
 * Replay is a fold: `events.reduce(applyEvent, initialSnapshot())`, under the rules each log was
 * written with (`episode.started.machine`): machine 2 (`episode.machine.ts`) folds strictly, and an
 * event its state does not accept throws `EventRejectedError` naming the round; logs of machine 1
 * (event versions 1 and 2) fold with its frozen copy as they always did (an event it did not handle
 * was ignored). The live runner uses the same `step`.
 */
import {
  createActor,
  initialTransition,
  type AnyActorScope,
  type AnyStateMachine,
  type SnapshotFrom,
} from 'xstate';
import type { EpisodeEvent } from '../streams/index.js';
import { describeEffect, effectOf, statePath, type EpisodeSnapshot } from './effects.js';
import { episodeMachine } from './episode.machine.js';
import { EventRejectedError, MachineError } from './errors.js';
import { episodeMachineV1 } from './legacy/episode-v1.machine.js';
import { FLAGS, MACHINE_VERSION, MACHINE_VERSIONS } from './rules.js';

export type { EpisodeSnapshot } from './effects.js';

/** A snapshot of the frozen machine 1, folding a log written under it. */
export type LegacySnapshot = SnapshotFrom<typeof episodeMachineV1>;

/** What a fold gives: the current machine's snapshot, or machine 1's for an old log. */
export type FoldedSnapshot = EpisodeSnapshot | LegacySnapshot;

/** True when `s` folds a log written under the current machine (not machine 1). */
export function isCurrent(s: FoldedSnapshot): s is EpisodeSnapshot {
  return s.machine === (episodeMachine as unknown);
}

/**
 * An inert actor scope for `logic`, made once and shared by every transition of every fold.
 *
 * Why not xstate's `transition(logic, snapshot, event)`: it builds a fresh actor for each call, and
 * the actor's constructor computes the machine's whole initial snapshot (entering its initial
 * states, running their entry assigns) only to throw it away, and the garbage it leaves: reusing
 * one scope cut a fold's time by ~60 % in `bench/fold.ts` (2.5x the events per second).
 * `logic.transition(snapshot, event, scope)` is the same macrostep with a scope we keep. Sharing it is safe because both machines are plain state charts: they spawn and invoke no
 * actors, send no delayed or cross-actor events and never read `self` or `system`, so nothing is
 * ever written to the scope; the actions it would hand to `actionExecutor` are ones `transition()`
 * returned and the fold discarded (machine 2 has assigns only, machine 1 also no-op effect names).
 */
export function inertScope(logic: AnyStateMachine): AnyActorScope {
  const self = createActor(logic);
  const none = (): void => {};
  return {
    self,
    id: '',
    sessionId: '',
    logger: none,
    defer: none,
    emit: none,
    system: self.system,
    stopChild: none,
    actionExecutor: none,
  };
}

let scopes: { current: AnyActorScope; v1: AnyActorScope } | null = null;
/** The shared scopes, made on first use (so importing this module builds no actor). */
const scope = () => (scopes ??= { current: inertScope(episodeMachine), v1: inertScope(episodeMachineV1) });

/** The machine before any event. */
export function initialSnapshot(): EpisodeSnapshot {
  return initialTransition(episodeMachine)[0];
}

/** Rejects an `episode.started` written under rules this build does not know. */
function checkRules(e: Extract<EpisodeEvent, { type: 'episode.started' }>): void {
  const v = e.machine;
  if (!MACHINE_VERSIONS.includes(v))
    throw new MachineError(
      'MACHINE_VERSION_UNKNOWN',
      `episode ${e.episodeId} was run under machine rules version ${v}; this build folds versions ${MACHINE_VERSIONS.join(', ')}: read it with the engiloop that wrote it, or a newer one`,
    );
  const unknown = e.flags.filter((f) => FLAGS[f] === undefined);
  if (unknown.length)
    throw new MachineError(
      'MACHINE_VERSION_UNKNOWN',
      `episode ${e.episodeId} was run with behaviour flag(s) ${unknown.join(', ')}, unknown to this build (a newer engiloop wrote it)`,
    );
}

/** Machine 2: whether the state accepts `event` (a guarded transition is enabled for it). */
export function accepts(s: EpisodeSnapshot, event: EpisodeEvent): boolean {
  return s.can(event);
}

/** Name of the state a snapshot is in (`observing`, `acting`, `restoring`, `done`, …). */
export function stateName(s: FoldedSnapshot): string {
  if (!isCurrent(s)) {
    const v = (s as LegacySnapshot).value;
    return typeof v === 'string' ? v : JSON.stringify(v);
  }
  const path = statePath(s).split('.');
  // Once `episode.ended` is recorded, the state it ended in.
  if (path[0] === 'ended') return s.context.status ?? 'ended';
  return path[0] === 'running' ? (path[1] === 'live' ? path[2]! : path[1]!) : path[0]!;
}

/**
 * Applies one event. Machine 2 throws when the state does not accept it.
 * @param index the event's position in its log, for the error.
 * @throws EventRejectedError, MachineError `MACHINE_VERSION_UNKNOWN`
 */
export function applyEvent(
  s: FoldedSnapshot,
  event: EpisodeEvent,
  index: number | null = null,
): FoldedSnapshot {
  if (!isCurrent(s)) return episodeMachineV1.transition(s as LegacySnapshot, event, scope().v1);
  if (event.type === 'episode.started' && statePath(s) === 'idle') {
    checkRules(event);
    if (event.machine !== MACHINE_VERSION)
      return episodeMachineV1.transition(initialTransition(episodeMachineV1)[0], event, scope().v1);
  }
  // A state that does not accept an event leaves the snapshot as it was (xstate returns the same
  // object); `can` confirms it, so only a rejected event pays for the second evaluation.
  const next = episodeMachine.transition(s, event, scope().current);
  if (next === s && !accepts(s, event))
    throw new EventRejectedError(
      s.context.round,
      index,
      event.type,
      stateName(s),
      describeEffect(effectOf(s)),
    );
  return next;
}

/**
 * Applies one event of a live episode (always machine 2).
 * @throws EventRejectedError when the state does not accept it.
 */
export function step(s: EpisodeSnapshot, event: EpisodeEvent): EpisodeSnapshot {
  const next = applyEvent(s, event);
  if (!isCurrent(next))
    throw new MachineError('MACHINE_VERSION_UNKNOWN', 'a live episode runs under machine 2');
  return next;
}

/** Folds a whole log into the machine's snapshot. */
export function fold(events: readonly EpisodeEvent[]): FoldedSnapshot {
  return events.reduce<FoldedSnapshot>((s, e, i) => applyEvent(s, e, i), initialSnapshot());
}

/** Persisted form of machine 1's snapshot: what that machine's digests were computed over. */
export function legacyPersisted(s: LegacySnapshot): unknown {
  return episodeMachineV1.getPersistedSnapshot(s);
}

/** Engiloop's own state of a machine-2 snapshot: what its digests are computed over. */
export function ownState(s: EpisodeSnapshot): { state: string; context: EpisodeSnapshot['context'] } {
  return { state: statePath(s), context: s.context };
}
