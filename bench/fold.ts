/**
 * Events folded per second: a realistic finished episode (N rounds of observe → decide → act) is
 * folded through the pure machine, and decoded from msgpack first (as replay does).
 */
import { pathToFileURL } from 'node:url';
import { fold, step, initialSnapshot, rulesFor, stateName, MACHINE_VERSION } from '../machines/index.js';
import { decodeEvent, encodeEvent, type EpisodeEvent } from '../streams/index.js';
import { TaskSchema, taskRecord, type Task } from '../tasks/index.js';
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
  const ev = <T extends object>(e: T) => ({ v: 1, at: (at += 5), ...e }) as unknown as EpisodeEvent;
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
    out.push({ ...a, round: r, at: (at += 5) });
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
  return out;
}

export function benchFold(opts: { rounds: number; repeat: number }): FoldRow[] {
  const events = sampleEpisode(opts.rounds);
  const bytes = events.map(encodeEvent);
  // Sanity: the fold must end where the live drive ends.
  let s = initialSnapshot();
  for (const e of events) s = step(s, e);
  if (stateName(fold(events)) !== stateName(s) || stateName(s) !== 'done')
    throw new Error('fold did not reach done');
  const time = (name: string, fn: () => void): FoldRow => {
    fn();
    const t = performance.now();
    for (let i = 0; i < opts.repeat; i++) fn();
    return { name, perSec: (events.length * opts.repeat) / ((performance.now() - t) / 1000) };
  };
  return [
    time(`fold (transition only), ${events.length}-event episode`, () => void fold(events)),
    time(`decode + fold, ${events.length}-event episode`, () => void fold(bytes.map((b) => decodeEvent(b)))),
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of benchFold({ rounds: 300, repeat: 20 }))
    console.log(`${r.name.padEnd(48)} ${Math.round(r.perSec).toLocaleString('en-US').padStart(12)} events/s`);
}
