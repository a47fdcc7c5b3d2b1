/**
 * Loops: the same failing action repeated, and stretches of rounds with no progress — no new
 * successful command, no better stage score, no hand-off, no changed screen.
 */
import { actionFacts } from '../actions.js';
import type { Finding } from '../taxonomy.js';
import { finding, ofType, type Detector, type EpisodeView, type Located } from '../view.js';

/** The same failing action this many times is a loop. */
const REPEATS = 3;
/** This many rounds in a row without progress is a loop. */
const STALL_ROUNDS = 8;

function repeated(v: EpisodeView): Finding[] {
  const byKey = new Map<string, Located[]>();
  for (const a of actionFacts(v)) if (a.failed) byKey.set(a.key, [...(byKey.get(a.key) ?? []), a.at]);
  return [...byKey.entries()]
    .filter(([, at]) => at.length >= REPEATS)
    .map(([key, at]) =>
      finding(
        'loop.repeated_failure',
        'loops',
        at,
        `the same failing action ran ${at.length} times (rounds ${at.map((l) => l.round).join(', ')}): ${key.slice(0, 120)}`,
      ),
    );
}

function stalls(v: EpisodeView): Finding[] {
  const progress = new Set<number>();
  const seen = new Set<string>();
  for (const a of actionFacts(v)) {
    if (!a.failed && !seen.has(a.key) && a.command !== null) progress.add(a.at.round);
    seen.add(a.key);
  }
  const best = new Map<string, number>();
  for (const s of ofType(v, 'stage.checked')) {
    if (s.event.score > (best.get(s.event.stage) ?? -1)) progress.add(s.round);
    best.set(s.event.stage, Math.max(s.event.score, best.get(s.event.stage) ?? -1));
  }
  for (const h of ofType(v, 'artifact.handed_off')) progress.add(h.round);
  let screen: string | undefined;
  for (const o of ofType(v, 'observation.recorded')) {
    if (o.event.screenshot !== undefined && screen !== undefined && o.event.screenshot !== screen)
      progress.add(o.round - 1);
    screen = o.event.screenshot ?? screen;
  }
  const decided = ofType(v, 'agent.decided').filter((d) => d.event.decision.kind !== 'done');
  const out: Finding[] = [];
  let stretch: Located[] = [];
  const flush = () => {
    if (stretch.length >= STALL_ROUNDS)
      out.push(
        finding(
          'loop.no_progress',
          'loops',
          [stretch[0]!, stretch.at(-1)!],
          `${stretch.length} rounds without progress (rounds ${stretch[0]!.round}–${stretch.at(-1)!.round}): no new successful command, better stage score, hand-off or changed screen`,
        ),
      );
    stretch = [];
  };
  for (const d of decided) {
    if (progress.has(d.round)) flush();
    else stretch.push(d);
  }
  flush();
  return out;
}

/** Repeated failing actions and rounds without progress. */
export const loopsDetector: Detector = { name: 'loops', detect: (v) => [...repeated(v), ...stalls(v)] };
