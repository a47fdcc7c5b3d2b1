/**
 * Precise constraints missed: each failing criterion of the final verification, with the measured
 * value, the target, by how much it missed and how far from the tolerance (near miss or far off).
 * Criteria with no numeric target are `constraint.check_failed`; missing deliverables and verifier or
 * task errors are left to the detectors that own them.
 */
import { describeMiss, formatTarget, missOf } from '../numeric.js';
import type { Finding } from '../taxonomy.js';
import { finding, ofType, type Detector, type EpisodeView } from '../view.js';

const NOT_CONSTRAINT = /^(task error:|verifier \S+ (timed out after|failed: ))/;

function constraints(v: EpisodeView): Finding[] {
  const verified = ofType(v, 'verification.completed').at(-1);
  if (!verified) return [];
  const gone = new Set(
    Object.entries(verified.event.artifacts)
      .filter(([, d]) => d === null)
      .map(([p]) => p),
  );
  const deliverableOf = new Map(v.task.criteria.map((c) => [c.id, c.deliverable]));
  const out: Finding[] = [];
  for (const x of verified.event.verdicts) {
    if (x.passed || NOT_CONSTRAINT.test(x.reason)) continue;
    const d = deliverableOf.get(x.criterion);
    if (d !== undefined && gone.has(d)) continue;
    const m = missOf(x);
    const f = (n: number) => String(Number(n.toPrecision(4)));
    if (!m) {
      out.push(
        finding(
          'constraint.check_failed',
          'constraint',
          [verified],
          `${x.criterion}: ${x.reason.slice(0, 200)}`,
        ),
      );
      continue;
    }
    const how = describeMiss(m);
    out.push(
      finding(
        m.near ? 'constraint.near_miss' : 'constraint.far_off',
        'constraint',
        [verified],
        `${x.criterion}${m.component === undefined ? '' : ` (component ${m.component + 1})`}: measured ${f(m.measured)}, expected ${formatTarget(m)} — off by ${f(m.off)} (${how})`,
      ),
    );
  }
  return out;
}

/** Failed criteria, measured against their targets. */
export const constraintDetector: Detector = { name: 'constraint', detect: constraints };
