/**
 * Replay is a fold: `events.reduce(applyEvent, initialSnapshot())`. `step` is the same transition
 * for the live runner, returning the effects it must carry out.
 */
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import type { EpisodeEvent } from '../streams/events.js';
import { episodeMachine } from './episode.machine.js';

export type EpisodeSnapshot = SnapshotFrom<typeof episodeMachine>;

/** Effects the machine asks for, carried out by the runner. */
export type Effect = 'provision' | 'observe' | 'decide' | 'execute' | 'verify' | 'finish';
const EFFECTS = new Set<string>(['provision', 'observe', 'decide', 'execute', 'verify', 'finish']);

const effectsOf = (actions: readonly { type: string }[]): Effect[] =>
  actions.map((a) => a.type).filter((t): t is Effect => EFFECTS.has(t));

/** The machine before any event. */
export function initialSnapshot(): EpisodeSnapshot {
  return initialTransition(episodeMachine)[0];
}

/** Applies one event; the new snapshot and the effects it asks for. */
export function step(
  snapshot: EpisodeSnapshot,
  event: EpisodeEvent,
): { snapshot: EpisodeSnapshot; effects: Effect[] } {
  const [next, actions] = transition(episodeMachine, snapshot, event);
  return { snapshot: next, effects: effectsOf(actions) };
}

/** Applies one event (the fold's reducer). */
export function applyEvent(snapshot: EpisodeSnapshot, event: EpisodeEvent): EpisodeSnapshot {
  return transition(episodeMachine, snapshot, event)[0];
}

/** Folds a whole log into the machine's snapshot. */
export function fold(events: readonly EpisodeEvent[]): EpisodeSnapshot {
  return events.reduce(applyEvent, initialSnapshot());
}

/** The JSON-safe persisted form of a snapshot (what digests are computed over). */
export function persist(snapshot: EpisodeSnapshot): unknown {
  return episodeMachine.getPersistedSnapshot(snapshot);
}

/** Name of the state a snapshot is in (`observing`, `done`, …). */
export function stateName(snapshot: EpisodeSnapshot): string {
  return typeof snapshot.value === 'string' ? snapshot.value : JSON.stringify(snapshot.value);
}
