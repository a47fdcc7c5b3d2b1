/**
 * The quantity a `calculix.result` criterion asks for, measured on a set of results and judged
 * against its goal: valued quantities through `judgeValue` (range, target, one-sided), convergence
 * and equilibrium as pass/fail with the measured numbers.
 */
import { ArtifactInvalidError } from '../errors.js';
import { fmt, judgeValue, pct, round, vec } from '../judge-value.js';
import type { Verdict } from '../types.js';
import type { CalculixResultParams as P } from './calculix-params.js';
import type { Sources } from './calculix-source.js';
import {
  convergence,
  displacement,
  frequency,
  maxVonMises,
  reactionSum,
  type Measured,
  type Where,
} from './measure.js';

/** What the criterion expects, for the verdict. */
export function expectedOf(p: P): unknown {
  if (p.quantity === 'converged') return 'converged';
  if (p.quantity === 'equilibrium') return { applied: p.applied };
  return (
    p.target ??
    p.range ??
    (p.lower_is_better ? { lower_is_better: p.lower_is_better } : { higher_is_better: p.higher_is_better })
  );
}

/** The measured value of a valued quantity, or of the equilibrium residual; throws when absent. */
function measure(p: P, src: Sources): Measured & { sum?: [number, number, number] } {
  const w = whereOf(p);
  // the .dat for set-based reads, the .frd for geometric ones
  const field = (): NonNullable<Sources['frd']> | NonNullable<Sources['dat']> =>
    w.set !== undefined ? (src.dat ?? missing('.dat', src)) : (src.frd ?? src.dat ?? missing('.frd', src));
  switch (p.quantity) {
    case 'converged':
      throw new Error('converged is not a value');
    case 'max_displacement': {
      const m = displacement(field(), w, p.component, 'max_abs', p.step);
      return { ...m, value: Math.abs(m.value) };
    }
    case 'displacement':
      return displacement(field(), w, p.component, p.statistic, p.step);
    case 'max_von_mises':
      return maxVonMises(field(), w, p.step);
    case 'reaction': {
      const r = reactionSum(field(), w, p.step);
      const v =
        p.component === 'magnitude' ? Math.hypot(...r.sum) : r.sum[{ x: 0, y: 1, z: 2 }[p.component]]!;
      return { value: v, source: `${r.source} = ${vec(r.sum)}`, sum: r.sum };
    }
    case 'equilibrium': {
      const r = reactionSum(field(), w, p.step);
      const resid = r.sum.map((s, i) => s + p.applied[i]!);
      const rel = Math.hypot(...resid) / Math.max(Math.hypot(...p.applied), 1e-30);
      return { value: rel, source: r.source, sum: r.sum };
    }
    case 'frequency':
      return frequency(src.dat ?? src.frd ?? missing('.dat', src), p.mode);
  }
}

function whereOf(p: P): Where {
  const q = p as Where;
  return { at: q.at, region: q.region, set: q.set };
}

/** `measure`, or `undefined` when the results do not hold the quantity. */
export function tryMeasure(p: P, src: Sources): number | undefined {
  if (p.quantity === 'converged') return src.sta === undefined ? undefined : (src.sta.at(-1)?.stepTime ?? 0);
  try {
    return measure(p, src).value;
  } catch {
    return undefined;
  }
}

/** What a quantity is called in reasons: `displacement (z)`, `max_von_mises`, … */
function quantityName(p: P): string {
  const c = (p as { component?: string }).component;
  return `${p.quantity}${c !== undefined && c !== 'magnitude' && p.quantity.includes('displacement') ? ` (${c})` : ''}`;
}

/**
 * The verdict on `src`. `label` starts the reason (the file), `note` ends it (where the results came
 * from); `failure` is a failed solve's phrase, which fails `converged`.
 */
export function judgeQuantity(
  p: P,
  src: Sources,
  label: string,
  note: string,
  failure: string | null = null,
): Verdict {
  const expected = expectedOf(p);
  const tail = note === '' ? '' : `; ${note}`;
  if (p.quantity === 'converged') {
    if (src.sta !== undefined) {
      const c = convergence(src.sta, p.step_time, p.min_steps);
      const ok = c.ok && failure === null;
      return {
        passed: ok,
        score: ok ? 1 : 0,
        measured: c.steps,
        expected,
        tolerance: 'step time reached',
        reason: `${label}: ${c.text}${failure ? `; ${failure}` : ''} → ${ok ? 'passed' : 'failed'}${tail}`,
      };
    }
    const f = src.frd ?? src.dat;
    const n = f === undefined ? 0 : 'blocks' in f ? f.blocks.length : f.tables.length + f.frequencies.length;
    const ok = n > 0 && failure === null;
    return {
      passed: ok,
      score: ok ? 1 : 0,
      measured: n,
      expected,
      tolerance: 'at least one result',
      reason: `${label}: ${n} complete result block(s)/table(s) written${failure ? `; ${failure}` : ''} → ${ok ? 'passed' : 'failed'}${tail}`,
    };
  }
  const m = measure(p, src);
  if (p.quantity === 'equilibrium') {
    const sum = m.sum!;
    const resid = sum.map((s, i) => s + p.applied[i]!);
    const ok = m.value <= p.rel_tol;
    return {
      passed: ok,
      score: ok ? 1 : 0,
      measured: { reaction: sum.map(round), residual: round(m.value) },
      expected,
      tolerance: { rel: p.rel_tol },
      reason: `${label}: ΣRF ${vec(sum)} (${m.source}) + applied ${vec(p.applied)} = ${vec(resid)}, ${pct(m.value)} of |F| (allowed ${pct(p.rel_tol)}) → ${ok ? 'in equilibrium' : 'NOT in equilibrium'}${tail}`,
    };
  }
  const v = judgeValue(`${label}: ${quantityName(p)}`, m.value, p, m.source);
  return { ...v, reason: `${v.reason}${tail}` };
}

function missing(what: string, src: Sources): never {
  throw new ArtifactInvalidError(
    `no ${what} result to read (have: ${Object.keys(src).join(', ') || 'nothing'})`,
  );
}

/** `0.19 delivered vs 0.2 re-solved`, for a mismatch. */
export function valuePair(p: P, delivered: number | undefined, fresh: number | undefined): string {
  if (delivered === undefined && fresh === undefined) return '';
  const f = (x: number | undefined): string => (x === undefined ? 'none' : fmt(x));
  return `; ${p.quantity === 'converged' ? 'last step time' : quantityName(p)} ${f(delivered)} delivered vs ${f(fresh)} re-solved`;
}
