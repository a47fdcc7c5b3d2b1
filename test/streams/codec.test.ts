import { Packr, Unpackr } from 'msgpackr';
import { describe, expect, it, vi } from 'vitest';
import { hasCode } from '../../core/index.js';
import { CodecError, decodeEvent, encodeEvent, type ActionExecuted } from '../../streams/index.js';
import { episode, executed } from './fixtures.js';

describe('codec', () => {
  it('round-trips every event type', () => {
    for (const e of episode('ep-codec')) expect(decodeEvent(encodeEvent(e))).toEqual(e);
  });

  it('decodes in a fresh module instance (no state shared with the encoder)', async () => {
    const bytes = episode('ep-fresh').map((e) => encodeEvent(e));
    vi.resetModules();
    const fresh = await import('../../streams/codec.js');
    // Decode out of order: each message must stand alone.
    expect(fresh.decodeEvent(bytes[4]!)).toEqual(episode('ep-fresh')[4]);
    expect(fresh.decodeEvent(bytes[0]!)).toEqual(episode('ep-fresh')[0]);
  });

  it('writes standard MessagePack maps that a plain decoder reads', () => {
    const e = executed(1);
    expect(new Unpackr({ useRecords: false, mapsAsObjects: true }).unpack(encodeEvent(e))).toEqual(e);
  });

  it('msgpackr records without shared structures embed their definitions in every message', () => {
    const packr = new Packr({ useRecords: true });
    const first = packr.pack(executed(1));
    const second = packr.pack(executed(2)); // same shapes: a shared registry would omit them here
    expect(new Unpackr({ useRecords: true }).unpack(second)).toEqual(executed(2));
    expect(second.length).toBe(first.length);
    // And our decoder reads record-encoded messages too.
    expect(decodeEvent(second)).toEqual(executed(2));
  });

  it('drops undefined properties like JSON does', () => {
    const e = { ...executed(1), result: { ...executed(1).result, blobs: undefined } };
    const back = decodeEvent(encodeEvent(e)) as ActionExecuted;
    expect('blobs' in back.result).toBe(false);
  });

  it('rejects bad bytes with EVENT_DECODE naming subject and seq', () => {
    const err = (() => {
      try {
        decodeEvent(Uint8Array.from([0xc1, 1, 2]), { subject: 'engiloop.ep.x', seq: 7 });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(CodecError);
    expect(hasCode(err, 'EVENT_DECODE')).toBe(true);
    expect((err as Error).message).toContain('engiloop.ep.x seq 7');
    expect(() => decodeEvent(new Packr({ useRecords: false }).pack({ hello: 1 }))).toThrow(/not an event/);
    expect(() => decodeEvent(new Uint8Array())).toThrow(CodecError);
  });
});
