/**
 * Validation of a task suite, as EngiWorld validates its verifiers: for every task, the reference
 * solution must pass, each defect variant must fail on the criteria it names, and each alternative
 * valid solution must pass — all played end to end in real sandboxes and judged by the real
 * verifiers. Anything else is a surprise.
 */
import { join } from 'node:path';
import type { LoadedTask } from '../../tasks/index.js';
import { createAgent } from '../agents/index.js';
import { runEpisode, type EpisodeDeps, type EpisodeProgress, type EpisodeResult } from '../episode/index.js';
import { pool } from './pool.js';

/** One solution to play and what must come of it. */
export interface SuiteCheck {
  lt: LoadedTask;
  /** `reference`, `defect:<name>` or `alternative:<name>`. */
  variant: string;
  /** Agent spec that plays it. */
  agent: string;
  expect: 'pass' | 'fail';
  /** For defects: the criteria that must fail. */
  mustFail: string[];
  /** For defects of multi-software tasks: where the chain must be found broken. */
  breaksAt?: { stage: string | null; cause?: string | undefined };
  /** How the episode must end: `done` (the default), or `failed` for a defect that halts at a stage. */
  status?: 'done' | 'failed' | 'limit';
  /** The score a defect must get (0, or a weighted stage's share). */
  score?: number;
}

export interface SuiteCheckResult {
  taskId: string;
  variant: string;
  expect: 'pass' | 'fail';
  ok: boolean;
  /** Why it is a surprise (empty when ok). */
  surprise: string;
  result: EpisodeResult;
  /** Criteria that did not pass. */
  failed: string[];
}

/** Every check of `tasks`, in order: reference, defects, alternatives. */
export function planChecks(tasks: readonly LoadedTask[]): SuiteCheck[] {
  return tasks.flatMap((lt) => [
    {
      lt,
      variant: 'reference',
      agent: 'scripted',
      expect: 'pass' as const,
      mustFail: [],
      status: 'done' as const,
    },
    ...Object.entries(lt.defects).map(([name, d]) => ({
      lt,
      variant: `defect:${name}`,
      agent: `scripted:${name}`,
      expect: 'fail' as const,
      mustFail: d.fails,
      status: d.status,
      score: d.score,
      ...(d.breaks_at ? { breaksAt: d.breaks_at } : {}),
    })),
    ...Object.keys(lt.alternatives).map((name) => ({
      lt,
      variant: `alternative:${name}`,
      agent: `scripted:${name}`,
      expect: 'pass' as const,
      mustFail: [],
      status: 'done' as const,
    })),
  ]);
}

/**
 * Judges one played check. Pure. With `strict`, a defect must fail exactly the criteria it names
 * (failing others too is a surprise: the variant does not isolate the fault it claims to).
 */
export function judge(check: SuiteCheck, r: EpisodeResult, strict = false): Omit<SuiteCheckResult, 'result'> {
  const failed = r.verdicts.filter((v) => !v.passed).map((v) => v.criterion);
  const base = { taskId: check.lt.task.id, variant: check.variant, expect: check.expect, failed };
  const no = (surprise: string) => ({ ...base, ok: false, surprise });
  if (r.status === 'infra_error') return no(`infra_error ${r.error?.code}: ${r.error?.message ?? ''}`);
  const status = check.status ?? 'done';
  if (r.status !== status)
    return no(`ended ${r.status}, not ${status}${r.haltedAt ? ` (halted at stage ${r.haltedAt})` : ''}`);
  if (check.expect === 'pass') {
    if (!r.passed) return no(`should pass but ${failed.join(', ')} failed`);
    return { ...base, ok: true, surprise: '' };
  }
  const want = check.score ?? 0;
  if (r.score === null || Math.abs(r.score - want) > 1e-6)
    return no(`should score ${want} but scored ${r.score}`);
  if (status === 'failed' && check.breaksAt?.stage != null && r.haltedAt !== check.breaksAt.stage)
    return no(
      `should halt at stage ${check.breaksAt.stage} but ${r.haltedAt ? `halted at ${r.haltedAt}` : 'did not halt'}`,
    );
  const missing = check.mustFail.filter((c) => !failed.includes(c));
  if (missing.length) return no(`should fail ${missing.join(', ')}, which passed`);
  const extra = failed.filter((c) => !check.mustFail.includes(c));
  if (strict && extra.length) return no(`also failed ${extra.join(', ')}, which it does not name`);
  const b = check.breaksAt;
  const a = r.attribution;
  if (b && (!a || a.stage !== b.stage || (b.cause !== undefined && a.cause !== b.cause)))
    return no(
      `should break at stage ${b.stage ?? '(none)'}${b.cause ? ` (${b.cause})` : ''} but ${a ? `broke at ${a.stage ?? '(none)'} (${a.cause}): ${a.detail}` : 'no attribution'}`,
    );
  return { ...base, ok: true, surprise: '' };
}

export interface VerifySuiteOptions {
  runId: string;
  runDir: string;
  concurrency: number;
  /** Defects must fail exactly the criteria they name. */
  strict?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: EpisodeProgress) => void;
}

/** The episode id of the `i`-th check of a verify-suite run (so the run can be recorded up front). */
export function suiteEpisodeId(runId: string, check: SuiteCheck, i: number): string {
  return `${runId}-${check.lt.task.id}-${i + 1}`;
}

export async function verifySuite(
  tasks: readonly LoadedTask[],
  deps: EpisodeDeps,
  o: VerifySuiteOptions,
): Promise<SuiteCheckResult[]> {
  const checks = planChecks(tasks);
  return pool(checks, o.concurrency, async (check, i) => {
    const episodeId = suiteEpisodeId(o.runId, check, i);
    const result = await runEpisode(check.lt, deps, {
      episodeId,
      runId: o.runId,
      agent: createAgent(check.agent, check.lt),
      artifactsDir: join(o.runDir, episodeId, 'artifacts'),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    });
    return { ...judge(check, result, o.strict ?? false), result };
  });
}
