/**
 * Events folded per second: a realistic finished episode (N rounds of observe → decide → start →
 * act, as the runner logs them at the current event version) is folded through the pure machine
 * (machine 2), decoded from msgpack first (as replay does), and — for logs written before machine 2 —
 * the same episode as a v1 log, which decoding upcasts and machine 1 folds. Each row is the median
 * of `repeat` folds (the machine this runs on is shared, so a mean would mostly measure neighbours).
 */
import { pathToFileURL } from 'node:url';
import { assign, initialTransition, setup } from 'xstate';
import {
  fold,
  step,
  initialSnapshot,
  isCurrent,
  rulesFor,
  stateName,
  MACHINE_VERSION,
} from '../machines/index.js';
import { decodeEvent, encodeEvent, EVENT_VERSION, type EpisodeEvent } from '../streams/index.js';
import { TaskSchema, taskRecord, type Task } from '../tasks/index.js';
import { inertScope } from '../machines/fold.js';
import { sampleEvent } from './streams.js';

export interface FoldRow {
  name: string;
  perSec: number;
}

/** A finished episode of `rounds` rounds, as the runner would log it. */
export function sampleEpisode(rounds: number): EpisodeEvent[] {
  const parsed = TaskSchema.parse({
    id: 'bench',
    title: 'bench',
    domain: 'cad',
    type: 'single-software',
    interface: 'cli',
    objective: 'x',
    limits: { max_rounds: rounds + 5, snapshot_every: 0 },
    environment: { sandboxes: { main: { image: 'engiloop/cli:latest' } } },
    deliverables: [{ path: 'part.stl', format: 'stl' }],
    criteria: [{ id: 'f', verifier: 'file.format', deliverable: 'part.stl' }],
    reference: [{ type: 'shell', command: 'true' }],
  });
  const task = parsed as Task;
  let at = 1_733_000_000_000;
  const ev = <T extends object>(e: T) =>
    ({ v: EVENT_VERSION, at: (at += 5), ...e }) as unknown as EpisodeEvent;
  const out: EpisodeEvent[] = [
    ev({
      type: 'episode.started',
      episodeId: 'e',
      runId: 'r',
      machine: MACHINE_VERSION,
      flags: [],
      rules: rulesFor(task),
      task: taskRecord(task),
      agent: 'scripted',
    }),
    ev({ type: 'sandbox.provisioned', sandboxes: { main: 'c' } }),
  ];
  for (let r = 1; r <= rounds; r++) {
    const a = sampleEvent(r);
    out.push(ev({ type: 'observation.recorded', round: r, text: 'Round ' + r }));
    out.push(
      ev({
        type: 'agent.decided',
        round: r,
        raw: { actions: [a.action] },
        decision: { kind: 'act', actions: [a.action] },
        latencyMs: 900,
        stateDigest: null,
      }),
    );
    out.push(ev({ type: 'action.started', round: r, index: 0, action: a.action }));
    out.push({ ...a, v: EVENT_VERSION, round: r, at: (at += 5) });
  }
  out.push(ev({ type: 'observation.recorded', round: rounds + 1, text: 'end' }));
  out.push(
    ev({
      type: 'agent.decided',
      round: rounds + 1,
      raw: { done: true },
      decision: { kind: 'done' },
      latencyMs: 1,
      stateDigest: null,
    }),
  );
  out.push(ev({ type: 'verification.completed', verdicts: [], score: 1, passed: true, artifacts: {} }));
  out.push(
    ev({
      type: 'episode.ended',
      status: 'done',
      score: 1,
      rounds: rounds + 1,
      snapshotDigest: '0'.repeat(64),
    }),
  );
  return out;
}

/** The same episode as a log of event version 1 (machine 1: no rules, no state digests). */
function asV1(events: readonly EpisodeEvent[]): EpisodeEvent[] {
  return events.map((e) => {
    const { machine: _m, flags: _f, rules: _r, ...rest } = e as EpisodeEvent & Record<string, unknown>;
    const { stateDigest: _d, ...v1 } = rest as Record<string, unknown>;
    return { ...v1, v: 1 } as unknown as EpisodeEvent;
  });
}

/**
 * xstate's floor on this machine: the cheapest machine a fold could run, two flat states and one
 * assign per event, stepped like `machines/fold.ts` steps the episode machine (one inert scope).
 * No machine with guards, nesting and an event log's context folds faster than this row.
 */
function xstateFloor(n: number): () => void {
  type Ctx = { n: number; lastAt: number };
  const tick = assign<Ctx, { type: 'tick'; at: number }, undefined, { type: 'tick'; at: number }, never>(
    ({ context, event }) => ({ n: context.n + 1, lastAt: event.at }),
  );
  const m = setup({
    types: { context: {} as Ctx, events: {} as { type: 'tick'; at: number } },
  }).createMachine({
    context: { n: 0, lastAt: 0 },
    initial: 'a',
    states: {
      a: { on: { tick: { target: 'b', actions: tick } } },
      b: { on: { tick: { target: 'a', actions: tick } } },
    },
  });
  const scope = inertScope(m);
  return () => {
    let s = initialTransition(m)[0];
    for (let i = 0; i < n; i++) s = m.transition(s, { type: 'tick', at: i }, scope);
    if (s.context.n !== n) throw new Error('floor machine lost events');
  };
}

export function benchFold(opts: { rounds: number; repeat: number }): FoldRow[] {
  const events = sampleEpisode(opts.rounds);
  const bytes = events.map(encodeEvent);
  const v1Bytes = asV1(events).map(encodeEvent);
  // Sanity: the fold must end where the live drive ends, and each row folds the machine it names.
  let s = initialSnapshot();
  for (const e of events) s = step(s, e);
  if (stateName(fold(events)) !== stateName(s) || stateName(s) !== 'done')
    throw new Error('fold did not reach done');
  if (
    !isCurrent(fold(bytes.map((b) => decodeEvent(b)))) ||
    isCurrent(fold(v1Bytes.map((b) => decodeEvent(b))))
  )
    throw new Error('the v3 log must fold with machine 2, the v1 log with machine 1');
  const time = (name: string, fn: () => void, count = events.length): FoldRow => {
    fn();
    const runs: number[] = [];
    for (let i = 0; i < opts.repeat; i++) {
      const t = performance.now();
      fn();
      runs.push(performance.now() - t);
    }
    const median = runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
    return { name, perSec: count / (median / 1000) };
  };
  return [
    time(`fold (machine 2), ${events.length}-event episode`, () => void fold(events)),
    time(
      `decode + fold (machine 2), ${events.length}-event episode`,
      () => void fold(bytes.map((b) => decodeEvent(b))),
    ),
    time(`decode + upcast + fold, v1 log (machine 1)`, () => void fold(v1Bytes.map((b) => decodeEvent(b)))),
    time(`xstate floor: 2 flat states, 1 assign per event`, xstateFloor(events.length)),
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of benchFold({ rounds: 300, repeat: 20 }))
    console.log(`${r.name.padEnd(52)} ${Math.round(r.perSec).toLocaleString('en-US').padStart(12)} events/s`);
}
