/**
 * Failure attribution for multi-software episodes: where the chain broke — the first stage (in
 * workflow order) whose check failed, the artifact involved, and whether the cause was the agent's
 * action, a hand-off that never happened (lost), one that carried an older artifact than the
 * producer's latest (stale) or a file whose content is not the format it should be, or the
 * infrastructure. A pure function of the log.
 */
import type { ArtifactHandedOff, EpisodeEvent, VerdictData } from '../../streams/index.js';
import { canonicalFormat, isKnownFormat } from '../../verifiers/index.js';
import { latestStages } from './stage-list.js';
import { defaultSandbox, stagesOf, taskFromRecord, type Stage, type Task } from '../../tasks/index.js';

export type BreakCause = 'agent' | 'lost_handoff' | 'stale_handoff' | 'wrong_format' | 'infrastructure';

/** Where a multi-software chain broke. */
export interface Attribution {
  /** First failing stage; null when the failure is in an unstaged criterion or the infrastructure. */
  stage: string | null;
  /** `sandbox:path` of the artifact involved, when one is. */
  artifact: string | null;
  cause: BreakCause;
  detail: string;
}

/**
 * The deliverables a stage's app reads from earlier stages: its `consumes` list, or every
 * deliverable of the stage it comes `after`. A file an earlier stage keeps for the archive is never
 * blamed for a later stage's failure when the stage does not consume it.
 */
export function consumedBy(task: Task, st: Stage): Task['deliverables'] {
  if (st.consumes) return task.deliverables.filter((d) => st.consumes!.includes(d.path));
  return st.after ? task.deliverables.filter((d) => d.stage === st.after) : [];
}

/**
 * The sandbox a deliverable was read from: its declared one (default the first), or for `"*"` the
 * one the verification recorded (`"*"` when none did).
 */
export function deliverableSandbox(task: Task, path: string, sources?: Record<string, string>): string {
  const d = task.deliverables.find((x) => x.path === path);
  return d?.sandbox === '*' ? (sources?.[path] ?? '*') : (d?.sandbox ?? defaultSandbox(task));
}

/** True for tasks whose results carry an attribution: several sandboxes, or stages. */
function isMultiStage(task: Task): boolean {
  return Object.keys(task.environment.sandboxes).length > 1 || stagesOf(task).length > 0;
}

/** The `sandbox.lost` that ended an episode (no restore followed it), if any. */
function lostForGood(events: readonly EpisodeEvent[]): EpisodeEvent | undefined {
  const i = events.findLastIndex((e) => e.type === 'sandbox.lost');
  return i >= 0 && !events.slice(i).some((e) => e.type === 'episode.resumed') ? events[i] : undefined;
}

/** Attributes a finished episode's failure; null when it passed or is not multi-stage. */
export function attribute(events: readonly EpisodeEvent[]): Attribution | null {
  const start = events[0];
  const task = start?.type === 'episode.started' ? taskFromRecord(start.task) : null;
  if (!task || !isMultiStage(task)) return null;
  const first = defaultSandbox(task);
  // A fault of the harness, or a lost sandbox past the restore budget (the machine ends it there).
  const infra = events.find((e) => e.type === 'infra.failed') ?? lostForGood(events);
  if (infra?.type === 'infra.failed' || infra?.type === 'sandbox.lost')
    return {
      stage: null,
      artifact: null,
      cause: 'infrastructure',
      detail: `${infra.error.code} during ${infra.during}: ${infra.error.message}`,
    };
  const final = [...events].reverse().find((e) => e.type === 'verification.completed');
  if (final?.type !== 'verification.completed' || final.passed) return null;

  const latest = latestStages(events);
  const handoffs = events.filter((e): e is ArtifactHandedOff => e.type === 'artifact.handed_off');
  const crit = new Map(task.criteria.map((c) => [c.id, c.deliverable]));
  const sbOf = (path: string) => deliverableSandbox(task, path, final.sources);

  for (const st of stagesOf(task)) {
    const ds = task.deliverables.filter((d) => d.stage === st.name);
    const paths = new Set(ds.map((d) => d.path));
    const check = latest.get(st.name);
    const finalBad = final.verdicts.filter((v) => !v.passed && paths.has(crit.get(v.criterion) ?? ''));
    if (check?.passed && finalBad.length === 0) continue;
    const bad: VerdictData[] = check && !check.passed ? check.verdicts.filter((v) => !v.passed) : finalBad;
    const missing = ds.filter((d) => final.artifacts[d.path] === null).map((d) => d.path);
    const artifact = ds[0] ? `${sbOf(ds[0].path)}:${missing[0] ?? ds[0].path}` : null;
    const what = check?.blockedBy
      ? `blocked: depends on stage "${check.blockedBy.stage}"`
      : missing.length
        ? `${missing.join(', ')} never delivered`
        : bad.map((v) => `${v.criterion}: ${v.reason}`).join('; ') || 'failed';
    const base = { stage: st.name, artifact };
    // Was the stage's input (the deliverables of the stage it comes after) handed over properly?
    const prev = consumedBy(task, st);
    const here = ds[0] ? sbOf(ds[0].path) : first;
    for (const p of prev) {
      const from = sbOf(p.path);
      if (from === here) continue;
      // What reached this sandbox under the input's name (whatever file it was made from).
      const mine = handoffs.filter(
        (h) =>
          h.from.sandbox === from &&
          h.to.sandbox === here &&
          (h.from.path === p.path || h.to.path === p.path),
      );
      const last = mine.at(-1);
      const produced = latest.get(p.stage!)?.artifacts[p.path] ?? final.artifacts[p.path] ?? null;
      const at = `${from}:${p.path}`;
      if (!last)
        return {
          ...base,
          artifact: at,
          cause: 'lost_handoff',
          detail: `stage "${st.name}" in ${here} needed ${p.path} from ${from} (stage "${p.stage}"), which was never handed off; ${what}`,
        };
      // Only formats told by content can be wrong: a `.dat` or `.csv` is plain text to the sniffers.
      if (
        isKnownFormat(p.format) &&
        last.format !== 'unknown' &&
        canonicalFormat(last.format) !== canonicalFormat(p.format)
      )
        return {
          ...base,
          artifact: at,
          cause: 'wrong_format',
          detail: `${last.from.path} handed off as ${last.to.path} in round ${last.round} is ${last.format}, not ${p.format}; ${what}`,
        };
      if (produced && last.digest !== produced)
        return {
          ...base,
          artifact: at,
          cause: 'stale_handoff',
          detail: `${here} got ${p.path} ${last.digest.slice(0, 12)} in round ${last.round}, but ${from}'s latest is ${produced.slice(0, 12)}; ${what}`,
        };
    }
    return { ...base, cause: 'agent', detail: what };
  }
  const bad = final.verdicts.filter((v) => !v.passed);
  return {
    stage: null,
    artifact: null,
    cause: 'agent',
    detail: bad.map((v) => `${v.criterion}: ${v.reason}`).join('; '),
  };
}
