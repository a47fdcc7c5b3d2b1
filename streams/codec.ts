/**
 * The episode-event codec: the only module that turns events into stored bytes and back.
 *
 * Format: standard MessagePack maps (msgpackr with `useRecords: false`), one event per message,
 * properties whose value is `undefined` dropped (as `JSON.stringify` does).
 *
 * Why not msgpackr records: without *shared* structures a record message embeds its own record
 * definitions, so it does decode alone in any later process with no registry to persist (checked by
 * `test/streams/codec.test.ts`: two messages of the same shape packed by one Packr have the same
 * length, and the second decodes in a fresh Unpackr). But an event is one object tree in which few
 * shapes repeat, so the embedded definitions buy nothing: they make messages slightly larger and, in
 * `bench/streams.ts`, decode 10–25% slower than plain maps (4 KiB `action.executed`: ~0.5 M/s vs
 * ~0.6 M/s). Plain maps are also readable by any MessagePack decoder (Go, Python, a `nats` CLI dump),
 * which matters for a stored format. The decoder still accepts record-encoded messages, so a later
 * switch would not strand old logs.
 *
 * Why not JSON: for events carrying kilobytes of output, msgpack decodes ~2x faster (0.6 M/s vs
 * 0.25–0.29 M/s) and is a little smaller; for small events JSON.parse is on par (both ~0.8–1 M/s).
 * Decoding is far from the bottleneck either way (appends with fsync run at a few thousand per second).
 *
 * WARNING: stored format. Changing options here changes the bytes written; old bytes must still decode.
 */
import { Packr, Unpackr } from 'msgpackr';
import type { EpisodeEvent } from './events.js';
import { CodecError } from './errors.js';
import { upcast, type RawEvent, type UpcasterRegistry } from './upcast.js';

/** msgpackr options of the stored format; exported for the bench and tests. */
const PACKR_OPTIONS = Object.freeze({ useRecords: false, skipValues: [undefined] });

const packr = new Packr({ ...PACKR_OPTIONS });
// mapsAsObjects: maps become plain objects; record extensions (if ever written) still decode.
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

/** Where a message came from, named in decode errors. */
export interface DecodeContext {
  subject?: string;
  seq?: number;
  /** Upcasters to apply; defaults to this build's. */
  upcasters?: UpcasterRegistry;
}

/**
 * Encodes one event.
 *
 * @throws CodecError `EVENT_ENCODE` when the event holds something MessagePack cannot carry.
 */
export function encodeEvent(event: EpisodeEvent): Uint8Array {
  try {
    return packr.pack(event);
  } catch (err) {
    throw new CodecError('EVENT_ENCODE', `cannot encode ${event.type} event: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * Decodes one stored event and brings it to the current version (see `upcast.ts`).
 *
 * @throws CodecError `EVENT_DECODE` for bytes that are not one MessagePack map with a string `type`
 *   and a numeric `v`, naming `ctx.subject`/`ctx.seq` when given.
 * @throws UpcastError `EVENT_VERSION_UNSUPPORTED` for a version this build cannot read.
 */
export function decodeEvent(bytes: Uint8Array, ctx: DecodeContext = {}): EpisodeEvent {
  let raw: unknown;
  try {
    raw = unpackr.unpack(bytes);
  } catch (err) {
    throw new CodecError('EVENT_DECODE', `${where(ctx)}: not MessagePack (${(err as Error).message})`, {
      cause: err,
    });
  }
  if (!isRawEvent(raw)) {
    throw new CodecError('EVENT_DECODE', `${where(ctx)}: not an event (needs string "type" and numeric "v")`);
  }
  return upcast(raw, ctx.upcasters);
}

function isRawEvent(x: unknown): x is RawEvent {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const o = x as Record<string, unknown>;
  return typeof o.type === 'string' && typeof o.v === 'number';
}

function where(ctx: DecodeContext): string {
  const parts = [ctx.subject, ctx.seq === undefined ? undefined : `seq ${ctx.seq}`].filter(Boolean);
  return parts.length ? `event at ${parts.join(' ')}` : 'event';
}
