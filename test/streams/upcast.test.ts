import { describe, expect, it } from 'vitest';
import { Packr } from 'msgpackr';
import { hasCode } from '../../core/index.js';
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

  it('applies a registered v0 → v1 step, then bumps to the current version', () => {
    expect(upcast(v0Observation, fake)).toEqual({
      v: EVENT_VERSION,
      at: 5,
      type: 'observation.recorded',
      round: 2,
      text: 'hello',
    });
  });

  it('bumps the version of types that did not change in a step', () => {
    const e = { v: 0, at: 1, type: 'sandbox.provisioned', sandboxes: {} };
    expect(upcast(e, fake)).toEqual({ ...e, v: EVENT_VERSION });
  });

  it('runs through decodeEvent when given a registry', () => {
    const bytes = new Packr({ useRecords: false }).pack(v0Observation);
    expect(decodeEvent(bytes, { upcasters: fake })).toMatchObject({ v: EVENT_VERSION, text: 'hello' });
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

describe('the steps of this build', () => {
  it('v1 → v2 gives decisions a null state digest and leaves other types alone (then on to v3)', () => {
    const decided = {
      v: 1,
      at: 1,
      type: 'agent.decided',
      round: 1,
      raw: {},
      decision: { kind: 'done' },
      latencyMs: 3,
    };
    expect(upcast(decided)).toEqual({ ...decided, v: EVENT_VERSION, stateDigest: null });
    const obs = { v: 1, at: 1, type: 'observation.recorded', round: 1, text: 'x' };
    expect(upcast(obs)).toEqual({ ...obs, v: EVENT_VERSION });
  });

  it('v2 → v3 records that the episode ran under machine 1, with no flags', () => {
    const started = {
      v: 2,
      at: 1,
      type: 'episode.started',
      episodeId: 'e',
      runId: 'r',
      task: { id: 't' },
      agent: 'a',
    };
    expect(upcast(started)).toEqual({ ...started, v: 3, machine: 1, flags: [] });
    const ended = {
      v: 2,
      at: 2,
      type: 'episode.ended',
      status: 'done',
      score: 1,
      rounds: 1,
      snapshotDigest: 'x',
    };
    expect(upcast(ended)).toEqual({ ...ended, v: 3 });
  });
});
