import { describe, expect, it } from 'vitest';
import { Packr } from 'msgpackr';
import { hasCode } from '../../machines/errors.js';
import { decodeEvent, EVENT_VERSION, upcast, type UpcasterRegistry } from '../../streams/index.js';

// A made-up v0 shape: observations stored their text as `body`.
const v0Observation = { v: 0, at: 5, type: 'observation.recorded', round: 2, body: 'hello' };
const fake: UpcasterRegistry = {
  0: {
    'observation.recorded': ({ body, ...rest }) => ({ ...rest, text: body }),
  },
};

describe('upcast', () => {
  it('leaves a current event unchanged', () => {
    const e = { v: EVENT_VERSION, at: 1, type: 'observation.recorded', round: 1, text: 'x' };
    expect(upcast(e)).toEqual(e);
  });

  it('applies a registered v0 → v1 step', () => {
    expect(upcast(v0Observation, fake)).toEqual({
      v: 1,
      at: 5,
      type: 'observation.recorded',
      round: 2,
      text: 'hello',
    });
  });

  it('bumps the version of types that did not change in a step', () => {
    const e = { v: 0, at: 1, type: 'sandbox.provisioned', sandboxes: {} };
    expect(upcast(e, fake)).toEqual({ ...e, v: 1 });
  });

  it('runs through decodeEvent when given a registry', () => {
    const bytes = new Packr({ useRecords: false }).pack(v0Observation);
    expect(decodeEvent(bytes, { upcasters: fake })).toMatchObject({ v: 1, text: 'hello' });
  });

  it('refuses versions newer than this build or not integers', () => {
    for (const v of [EVENT_VERSION + 1, -1, 0.5]) {
      let err: unknown;
      try {
        upcast({ v, type: 'episode.ended' });
      } catch (e) {
        err = e;
      }
      expect(hasCode(err, 'EVENT_VERSION_UNSUPPORTED')).toBe(true);
    }
  });
});
