/** Small, realistic episode events for the streams tests. */
import {
  EVENT_VERSION,
  type ActionExecuted,
  type EpisodeEvent,
  type ObservationRecorded,
} from '../../streams/index.js';

/** An `action.executed` event with the given output. */
export function executed(round: number, stdout = `ok ${round}\n`, stderr = ''): ActionExecuted {
  return {
    v: EVENT_VERSION,
    at: 1_733_000_000_000 + round,
    type: 'action.executed',
    round,
    index: 0,
    action: { type: 'shell', command: `python3 build.py --round ${round}` },
    result: { stdout, stderr, exitCode: 0, durationMs: 120 + round, truncated: false, timedOut: false },
  };
}

/** An `observation.recorded` event. */
export function observed(round: number, text = `round ${round}: part.step written`): ObservationRecorded {
  return { v: EVENT_VERSION, at: 1_733_000_000_000 + round, type: 'observation.recorded', round, text };
}

/** A short episode: start, sandbox, then `rounds` × (observation, decision, action), end. */
export function episode(episodeId: string, rounds = 3): EpisodeEvent[] {
  const events: EpisodeEvent[] = [
    {
      v: EVENT_VERSION,
      at: 1_733_000_000_000,
      type: 'episode.started',
      episodeId,
      runId: 'run-1',
      machine: 2,
      flags: [],
      task: { id: 'bracket', title: 'Bracket' },
      agent: 'scripted',
    },
    { v: EVENT_VERSION, at: 1_733_000_000_001, type: 'sandbox.provisioned', sandboxes: { cad: 'c0ffee' } },
  ];
  for (let r = 1; r <= rounds; r++) {
    events.push(observed(r));
    events.push({
      v: EVENT_VERSION,
      at: 1_733_000_000_100 + r,
      type: 'agent.decided',
      round: r,
      raw: { content: [{ type: 'text', text: 'run the build' }] },
      decision: { kind: 'act', actions: [{ type: 'shell', command: 'python3 build.py' }] },
      latencyMs: 900,
      stateDigest: null,
    });
    events.push(executed(r));
  }
  events.push({
    v: EVENT_VERSION,
    at: 1_733_000_001_000,
    type: 'episode.ended',
    status: 'done',
    score: 1,
    rounds,
    snapshotDigest: 'ab'.repeat(32),
  });
  return events;
}
