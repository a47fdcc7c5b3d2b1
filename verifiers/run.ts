/**
 * Running verifiers: look the verifier up, check its params and the deliverable, and run it under a
 * time limit. Whatever happens (unknown verifier, bad params, missing file, a throw, a hang) the
 * answer is a verdict; only a caller's abort propagates.
 */
import type { VerdictData } from '../streams/index.js';
import type { Task } from '../tasks/index.js';
import { checkDeliverable } from './deliverable.js';
import { formatMs, isVerifierTimeout } from './errors.js';
import { getVerifier } from './registry.js';
import { withTimeout } from './timeout.js';
import type { CriterionInput, Verdict, VerifierContext } from './types.js';

/** Options of `verifyCriterion` and `verifyAll`. */
export interface VerifyOptions {
  /** Time limit of one verify call, in ms. Default 60 000. */
  timeoutMs?: number;
  /**
   * The nonce a sealed verifier must use for a criterion, from a recorded verification
   * (`VerdictData.seal`), so a replay re-verifies the same way. Default (or `undefined` from it): a
   * fresh random one each time.
   */
  seal?: (criterion: string) => string | undefined;
}

/** Default time limit of one verify call. */
const DEFAULT_VERIFY_TIMEOUT_MS = 60_000;

/** A criterion as `verifyCriterion` takes it: the verifier name plus what the verifier sees. */
export type CriterionToVerify = CriterionInput & { verifier: string };

/**
 * Verifies one criterion. Never throws for a verifier fault: an unknown verifier, invalid or
 * unknown params, a missing or empty deliverable (`deliverable part.stl is missing`), an exception
 * or a time-out (`verifier timed out after 60 s`) all come back as a failing verdict with the reason
 * (the params and the deliverable are checked by the verifier: see `defineVerifier`).
 */
export async function verifyCriterion(
  ctx: VerifierContext,
  criterion: CriterionToVerify,
  opts: VerifyOptions = {},
): Promise<Verdict> {
  const timeoutMs = Math.max(opts.timeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS, ownBudgetMs(criterion.params));
  const fail = (reason: string): Verdict => ({ passed: false, score: 0, reason });
  try {
    const verifier = getVerifier(criterion.verifier);
    // Every verifier gets this guard; one made with defineVerifier also checks its params.
    const missing = await checkDeliverable(ctx, criterion);
    if (missing !== null) return missing;
    const { verifier: _name, ...input } = criterion;
    const verdict = await withTimeout(
      (signal) => verifier.verify({ ...ctx, signal }, input),
      timeoutMs,
      'verifier',
      ctx.signal,
    );
    return { ...verdict, score: clamp01(verdict.score) };
  } catch (err) {
    if (ctx.signal?.aborted && !isVerifierTimeout(err)) throw err;
    if (isVerifierTimeout(err))
      return fail(`verifier ${criterion.verifier} timed out after ${formatMs(timeoutMs)}`);
    return fail(`verifier ${criterion.verifier} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Verifies every criterion of a task, in order, one at a time (tool containers are heavy), and
 * labels each verdict with its criterion id, verifier name and role. The deliverable's declared
 * format is passed along for `file.format`.
 */
export async function verifyAll(
  ctx: VerifierContext,
  task: Pick<Task, 'criteria' | 'deliverables'> & { inputs?: Task['inputs'] },
  opts: VerifyOptions = {},
): Promise<VerdictData[]> {
  const out: VerdictData[] = [];
  const given = task.inputs ? [...task.inputs.files.map((f) => f.src), ...task.inputs.reference_images] : [];
  const base = ctx.inputs === undefined && given.length > 0 ? { ...ctx, inputs: given } : ctx;
  for (const c of task.criteria) {
    const format = task.deliverables.find((d) => d.path === c.deliverable)?.format;
    const input: CriterionToVerify = {
      id: c.id,
      verifier: c.verifier,
      role: c.role,
      params: c.params,
      ...(c.deliverable === undefined ? {} : { deliverable: c.deliverable }),
      ...(format === undefined ? {} : { format }),
    };
    const nonce = opts.seal?.(c.id);
    const v = await verifyCriterion(nonce === undefined ? base : { ...base, nonce }, input, opts);
    out.push({ criterion: c.id, verifier: c.verifier, role: c.role, ...v });
  }
  return out;
}

/**
 * A criterion that gives its tool a longer time limit (`timeout_sec`, e.g. a big CalculiX re-solve)
 * gets it, plus 30 s for the verifier's own work, instead of being cut at the default.
 */
function ownBudgetMs(params: Record<string, unknown>): number {
  const t = params['timeout_sec'];
  return typeof t === 'number' && Number.isFinite(t) && t > 0 ? t * 1000 + 30_000 : 0;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
