/**
 * Upcasters: bring a stored event written at an older schema version up to {@link EVENT_VERSION}.
 *
 * A registry maps a source version `v` and an event type to a function that turns a `v` event into a
 * `v + 1` event. Versions are walked one step at a time; a type with no function at some step did not
 * change shape in that step and only has its `v` bumped. The v1 fixtures in test/fixtures/episodes
 * and v2 fixtures in test/fixtures/episodes prove that logs written before v3 still replay.
 *
 * Adding an upcaster: bump `EVENT_VERSION` in `events.ts`, add `{ [old]: { [type]: fn } }` here, and
 * commit a fixture log written at the old version whose replay must still pass.
 */
import { EVENT_VERSION, type EpisodeEvent } from './events.js';
import { UpcastError } from './errors.js';

/** A stored event as decoded, before its shape is trusted. */
export type RawEvent = { v: number; type: string } & Record<string, unknown>;

/** Turns one event of version `v` into the same event at `v + 1` (its `v` is set by the caller). */
export type Upcaster = (event: RawEvent) => Record<string, unknown>;

/** Source version → event type → step to `version + 1`. */
export type UpcasterRegistry = Readonly<Record<number, Readonly<Partial<Record<string, Upcaster>>>>>;

/** The upcasters of this build. */
const UPCASTERS: UpcasterRegistry = Object.freeze({
  // v1 → v2: decisions record the digest of the state they were made on; v1 logs have none.
  1: { 'agent.decided': (e: RawEvent) => ({ ...e, stateDigest: null }) },
  // v2 → v3: episodes record the machine rules they ran under; every earlier log ran machine 1.
  2: { 'episode.started': (e: RawEvent) => ({ ...e, machine: 1, flags: [] }) },
});

/**
 * Brings `raw` to {@link EVENT_VERSION}. Returns the same object when it is already current.
 *
 * @param registry steps to apply; defaults to {@link UPCASTERS}. Tests pass their own.
 * @throws UpcastError `EVENT_VERSION_UNSUPPORTED` when `v` is not an integer ≥ 0 or is newer than
 *   this build (a log written by a later engiloop).
 */
export function upcast(raw: RawEvent, registry: UpcasterRegistry = UPCASTERS): EpisodeEvent {
  const { v, type } = raw;
  if (!Number.isInteger(v) || v < 0) throw new UpcastError(`event ${type} has invalid version ${String(v)}`);
  if (v > EVENT_VERSION) {
    throw new UpcastError(`event ${type} has version ${v}, newer than this build's ${EVENT_VERSION}`);
  }
  let current: RawEvent = raw;
  for (let from = v; from < EVENT_VERSION; from++) {
    const step = registry[from]?.[current.type];
    const next = step ? step(current) : { ...current };
    current = { ...next, v: from + 1, type: typeof next.type === 'string' ? next.type : current.type };
  }
  return current as unknown as EpisodeEvent;
}
