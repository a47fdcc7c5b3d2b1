/**
 * How the episode ended: DONE while failing, FAIL with budget left, stuck at the limit, streaks of
 * invalid outputs, and the missing deliverables.
 */
import type { Finding } from '../taxonomy.js';
import { finding, ofType, type Detector, type EpisodeView, type Located } from '../view.js';

/** Invalid outputs in a row that make a streak. */
const INVALID_STREAK = 3;

function termination(v: EpisodeView): Finding[] {
  const out: Finding[] = [];
  const decided = ofType(v, 'agent.decided');
  const last = decided.at(-1);
  const ended = ofType(v, 'episode.ended')[0];
  const verified = ofType(v, 'verification.completed').at(-1);
  if (last?.event.decision.kind === 'done' && verified && !verified.event.passed) {
    const failing = verified.event.verdicts.filter((x) => !x.passed).map((x) => x.criterion);
    out.push(
      finding(
        'termination.premature_done',
        'outcome',
        [last, verified],
        `declared DONE in round ${last.round} while ${failing.length} criterion(s) failed: ${failing.join(', ')}`,
      ),
    );
  }
  if (last?.event.decision.kind === 'fail') {
    const max = v.rules?.maxRounds;
    const left = max === undefined ? '' : ` with ${max - last.round} of ${max} rounds left`;
    out.push(
      finding(
        'termination.premature_fail',
        'outcome',
        [last],
        `gave up in round ${last.round}${left}: ${last.event.decision.reason}`,
      ),
    );
  }
  if (ended?.event.status === 'limit') {
    out.push(
      finding(
        'termination.stuck_at_limit',
        'outcome',
        [...(last ? [last] : []), ended],
        `reached the limit after ${ended.event.rounds} round(s) without declaring DONE`,
      ),
    );
  }
  return out;
}

function invalidStreaks(v: EpisodeView): Finding[] {
  const out: Finding[] = [];
  let run: Located[] = [];
  const flush = () => {
    if (run.length >= INVALID_STREAK) {
      const first = run[0]!.event;
      const why =
        first.type === 'agent.decided' && first.decision.kind === 'invalid' ? first.decision.error : '';
      out.push(
        finding(
          'output.invalid_streak',
          'outcome',
          run,
          `${run.length} invalid outputs in a row (rounds ${run[0]!.round}–${run.at(-1)!.round}); the first: ${why.slice(0, 160)}`,
        ),
      );
    }
    run = [];
  };
  for (const d of ofType(v, 'agent.decided')) {
    if (d.event.decision.kind === 'invalid') run.push(d);
    else flush();
  }
  flush();
  return out;
}

function missing(v: EpisodeView): Finding[] {
  const verified = ofType(v, 'verification.completed').at(-1);
  if (!verified) return [];
  const gone = Object.entries(verified.event.artifacts)
    .filter(([, digest]) => digest === null)
    .map(([path]) => path);
  if (gone.length === 0) return [];
  return [
    finding(
      'deliverable.missing',
      'outcome',
      [verified],
      `${gone.join(', ')} ${gone.length === 1 ? 'was' : 'were'} not in the workspace at the end`,
    ),
  ];
}

/** Termination, invalid-output streaks and missing deliverables. */
export const outcomeDetector: Detector = {
  name: 'outcome',
  detect: (v) => [...termination(v), ...invalidStreaks(v), ...missing(v)],
};
