/**
 * The artifact graph of an episode, read off its log: each artifact (a sandbox, a path and a
 * SHA-256), the round and action of the app that produced it, the hand-offs that carried it to other
 * apps, and the verdicts on it (stage checks and the final verification).
 */
import type { ActionExecuted, ActionStarted, EpisodeEvent, VerdictData } from '../../streams/index.js';
import { taskScore } from '../../verifiers/index.js';
import { attribute, consumedBy, deliverableSandbox, type Attribution } from '../episode/index.js';
import { defaultSandbox, stagesOf, taskFromRecord } from '../../tasks/index.js';

export interface ArtifactNode {
  id: string;
  sandbox: string;
  path: string;
  digest: string;
  /** Round (and action index) whose command produced it, when known. */
  producedBy: { round: number; index: number | null; command: string | null } | null;
  /** Stage checks and final verdicts on this exact artifact. */
  checks: { source: string; round: number | null; passed: boolean; score: number; verdicts: VerdictData[] }[];
  /** A deliverable of the task (verified at the end). */
  final: boolean;
  /** Stages that read this file (their `consumes`, or the stage they come after): what needed it. */
  consumedBy: string[];
}

export interface HandoffEdge {
  from: string;
  to: string;
  round: number;
  format: string;
  bytes: number;
}

export interface ProvenanceGraph {
  episodeId: string;
  taskId: string;
  nodes: ArtifactNode[];
  edges: HandoffEdge[];
  /** Where the chain broke, when the episode did not pass. */
  attribution: Attribution | null;
  /** The episode this one was forked from, and the round (`engiloop fork`). */
  parent: { episodeId: string; round: number } | null;
}

const key = (sandbox: string, path: string, digest: string) => `${sandbox}:${path}@${digest.slice(0, 12)}`;

/** Builds the graph of one episode's events. */
export function provenance(events: readonly EpisodeEvent[]): ProvenanceGraph {
  const start = events[0];
  if (start?.type !== 'episode.started')
    throw new Error('not an episode log: the first event is not episode.started');
  const task = taskFromRecord(start.task);
  if (!task)
    throw new Error(
      `the task recorded in the log (${start.task.id}) does not validate with this build's schema`,
    );
  const first = defaultSandbox(task);
  const final = [...events].reverse().find((e) => e.type === 'verification.completed');
  const sbOf = (path: string) =>
    deliverableSandbox(task, path, final?.type === 'verification.completed' ? final.sources : undefined);
  const readers = (path: string) =>
    stagesOf(task)
      .filter((st) => consumedBy(task, st).some((d) => d.path === path))
      .map((st) => st.name);
  /** A file's own verdicts scored as the task scores (binary or quantitative): one rule everywhere. */
  const scoreOf = (vs: VerdictData[], fallback: number) =>
    vs.length ? taskScore(task.scoring, vs) : fallback;
  const started = new Map<string, ActionStarted>();
  const actions: ActionExecuted[] = [];
  for (const e of events) {
    if (e.type === 'action.started') started.set(`${e.round}.${e.index}`, e);
    if (e.type === 'action.executed') actions.push(e);
  }
  const sandboxOfAction = (a: ActionExecuted) =>
    a.action.type === 'shell'
      ? (a.action.sandbox ?? first)
      : a.action.type === 'handoff'
        ? a.action.to
        : first;
  const nodes = new Map<string, ArtifactNode>();
  const node = (sandbox: string, path: string, digest: string): ArtifactNode => {
    const id = key(sandbox, path, digest);
    let n = nodes.get(id);
    if (!n)
      nodes.set(
        id,
        (n = {
          id,
          sandbox,
          path,
          digest,
          producedBy: null,
          checks: [],
          final: false,
          consumedBy: readers(path),
        }),
      );
    return n;
  };
  /** The action in `sandbox` that was running at `t` (ms), or the last one before it. */
  const actionAt = (sandbox: string, t: number) => {
    let best: ActionExecuted | null = null;
    for (const a of actions) {
      if (sandboxOfAction(a) !== sandbox) continue;
      const s = started.get(`${a.round}.${a.index}`)?.at ?? a.at - a.result.durationMs;
      if (s <= t + 1) best = a;
    }
    return best;
  };
  const describe = (a: ActionExecuted | null, round: number) =>
    a
      ? {
          round: a.round,
          index: a.index,
          command: a.action.type === 'shell' ? a.action.command.split('\n')[0]!.slice(0, 80) : a.action.type,
        }
      : { round, index: null, command: null };

  const edges: HandoffEdge[] = [];
  for (const e of events) {
    if (e.type === 'artifact.handed_off') {
      const src = node(e.from.sandbox, e.from.path, e.digest);
      src.producedBy ??=
        e.producedAt === null ? null : describe(actionAt(e.from.sandbox, e.producedAt), e.round);
      const dst = node(e.to.sandbox, e.to.path, e.digest);
      dst.producedBy ??= { round: e.round, index: e.index, command: `handoff from ${e.from.sandbox}` };
      edges.push({ from: src.id, to: dst.id, round: e.round, format: e.format, bytes: e.bytes });
    }
    if (e.type === 'stage.checked')
      for (const [path, digest] of Object.entries(e.artifacts)) {
        const n = node(sbOf(path), path, digest);
        // Checked after round r: made by the last action of that sandbox up to then.
        n.producedBy ??= describe(actionAt(n.sandbox, e.at), e.round);
        const mine = new Set(task.criteria.filter((c) => c.deliverable === path).map((c) => c.id));
        const vs = e.verdicts.filter((v) => mine.has(v.criterion));
        n.checks.push({
          source: `stage ${e.stage}`,
          round: e.round,
          passed: e.passed,
          score: scoreOf(vs, e.score),
          verdicts: vs,
        });
      }
    if (e.type === 'verification.completed')
      for (const [path, digest] of Object.entries(e.artifacts)) {
        if (digest === null) continue;
        const n = node(sbOf(path), path, digest);
        n.final = true;
        n.producedBy ??= describe(actionAt(n.sandbox, e.at), 0);
        const mine = new Set(task.criteria.filter((c) => c.deliverable === path).map((c) => c.id));
        const vs = e.verdicts.filter((v) => mine.has(v.criterion));
        n.checks.push({
          source: 'final',
          round: null,
          passed: vs.every((v) => v.passed),
          score: scoreOf(vs, 1),
          verdicts: vs,
        });
      }
  }
  return {
    episodeId: start.episodeId,
    taskId: task.id,
    nodes: [...nodes.values()],
    edges,
    attribution: attribute(events),
    parent: start.parent ?? null,
  };
}
