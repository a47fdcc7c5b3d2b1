/**
 * One episode's page data, read off its log: the rounds (observation, the agent's output, each
 * action and its result), the hand-offs between sandboxes with the stage that checked what they
 * carried, stage checks, the final verdicts, the failure modes with the rounds they cite, the verdict
 * trace over the rounds, the fork family and the artifact graph. Pure: the writer supplies the
 * findings (from the summary), the trace (when re-verified) and the children.
 */
import type { EpisodeEvent, VerdictData } from '../../streams/index.js';
import { defaultSandbox, taskFromRecord } from '../../tasks/index.js';
import { provenance } from '../provenance/index.js';
import type {
  EpisodeData,
  FindingData,
  HandoffData,
  ProvenanceData,
  RoundData,
  StageData,
  TraceSeries,
  VerdictView,
} from './format.js';
import { REPORT_FORMAT } from './format.js';
import { actionLabel, type TextFiles } from './texts.js';
import { recordedTrace } from './trace.js';

/** What the writer adds to the log. */
export interface EpisodeExtras {
  findings: FindingData[];
  /** Re-verified series (`report --trace`); else the recorded stage checks and final verdicts. */
  trace?: TraceSeries[];
  children: { episodeId: string; round: number }[];
  texts: TextFiles;
  /** The whole of an output the log holds cut (`result.blobs`), by digest, when fetched. */
  outputs?: ReadonlyMap<string, string>;
}

const verdictView = (v: VerdictData): VerdictView => ({
  criterion: v.criterion,
  verifier: v.verifier,
  role: v.role,
  passed: v.passed,
  score: v.score,
  ...(v.measured === undefined ? {} : { measured: v.measured }),
  ...(v.expected === undefined ? {} : { expected: v.expected }),
  ...(v.tolerance === undefined ? {} : { tolerance: v.tolerance }),
  reason: v.reason,
});

function provenanceOf(events: readonly EpisodeEvent[]): ProvenanceData | null {
  try {
    const g = provenance(events);
    return {
      nodes: g.nodes.map((n) => ({
        id: n.id,
        sandbox: n.sandbox,
        path: n.path,
        digest: n.digest,
        producedBy: n.producedBy,
        final: n.final,
        checks: n.checks.map((c) => ({ source: c.source, round: c.round, passed: c.passed, score: c.score })),
      })),
      edges: g.edges,
      attribution: g.attribution as unknown as ProvenanceData['attribution'],
    };
  } catch {
    return null; // a log this build cannot read the task of: the page says there is no graph
  }
}

/** The page data of the episode whose log is `events` (`seqs[i]` the stream seq of `events[i]`). */
export function episodeData(
  events: readonly EpisodeEvent[],
  seqs: readonly number[],
  x: EpisodeExtras,
): EpisodeData {
  const start = events[0];
  if (start?.type !== 'episode.started') throw new Error('not an episode log: no episode.started first');
  const task = taskFromRecord(start.task);
  const record = start.task as Record<string, unknown>;
  const sandboxes = Object.keys((record.environment as { sandboxes?: object } | undefined)?.sandboxes ?? {});
  const first = task ? defaultSandbox(task) : (sandboxes[0] ?? 'main');
  const rounds = new Map<number, RoundData>();
  const round = (r: number, at: number): RoundData => {
    let x0 = rounds.get(r);
    if (!x0) {
      x0 = {
        round: r,
        sandboxes: [],
        observation: null,
        decision: null,
        actions: [],
        modes: [],
        atMs: at - start.at,
      };
      rounds.set(r, x0);
    }
    return x0;
  };
  const whole = (digest: string | undefined, cut: string) => (digest && x.outputs?.get(digest)) ?? cut;
  const handoffs: HandoffData[] = [];
  const stages: StageData[] = [];
  let verification: EpisodeData['verification'] = null;
  let ended: Extract<EpisodeEvent, { type: 'episode.ended' }> | null = null;
  let error: string | null = null;
  let retries: NonNullable<RoundData['decision']>['retries'] = [];
  events.forEach((e, i) => {
    const seq = seqs[i] ?? i + 1;
    switch (e.type) {
      case 'observation.recorded':
        round(e.round, e.at).observation = {
          text: x.texts.cut(e.text),
          screenshot: e.screenshot
            ? { file: `files/${e.screenshot}.png`, digest: e.screenshot, windows: e.windows ?? [] }
            : null,
          seq,
        };
        break;
      case 'agent.retried':
        retries.push({ attempt: e.attempt, message: e.message, delayMs: e.delayMs });
        break;
      case 'agent.decided': {
        const d = e.decision;
        const c = e.call;
        round(e.round, e.at).decision = {
          kind: d.kind,
          note:
            d.kind === 'done'
              ? (d.message ?? null)
              : d.kind === 'fail'
                ? d.reason
                : d.kind === 'invalid'
                  ? d.error
                  : null,
          raw: x.texts.cut(typeof e.raw === 'string' ? e.raw : (JSON.stringify(e.raw, null, 1) ?? '')),
          latencyMs: e.latencyMs,
          call: c
            ? {
                provider: c.provider,
                model: c.model,
                input: c.usage.input,
                output: c.usage.output,
                cached: c.usage.cached,
                costUsd: c.costUsd,
                latencyMs: c.latencyMs,
                retries: c.retries,
                stopReason: c.stopReason,
              }
            : null,
          retries,
          seq,
        };
        retries = [];
        break;
      }
      case 'action.executed': {
        const a = e.action as Record<string, unknown>;
        const sb =
          e.action.type === 'handoff'
            ? e.action.from
            : e.action.type === 'shell'
              ? (e.action.sandbox ?? first)
              : first;
        const rd = round(e.round, e.at);
        if (!rd.sandboxes.includes(sb)) rd.sandboxes.push(sb);
        rd.actions.push({
          index: e.index,
          action: a,
          label: actionLabel(a),
          sandbox: sb,
          exitCode: e.result.exitCode,
          durationMs: e.result.durationMs,
          timedOut: e.result.timedOut,
          skipped: e.result.skipped === true,
          stdout: x.texts.cut(whole(e.result.blobs?.stdout, e.result.stdout)),
          stderr: x.texts.cut(whole(e.result.blobs?.stderr, e.result.stderr)),
          fault: e.result.fault ? `${e.result.fault.code}: ${e.result.fault.message}` : null,
          seq,
        });
        break;
      }
      case 'artifact.handed_off':
        handoffs.push({
          round: e.round,
          index: e.index,
          from: e.from,
          to: e.to,
          digest: e.digest,
          bytes: e.bytes,
          format: e.format,
          declared: e.declared,
          checkedBy: null,
          seq,
        });
        break;
      case 'stage.checked':
        stages.push({
          stage: e.stage,
          round: e.round,
          passed: e.passed,
          score: e.score,
          halt: e.halt,
          blockedBy: e.blockedBy ?? null,
          verdicts: e.verdicts.map(verdictView),
          seq,
        });
        for (const h of handoffs)
          if (!h.checkedBy && Object.values(e.artifacts).includes(h.digest))
            h.checkedBy = { stage: e.stage, passed: e.passed, score: e.score };
        break;
      case 'verification.completed':
        verification = { score: e.score, passed: e.passed, verdicts: e.verdicts.map(verdictView), seq };
        break;
      case 'infra.failed':
        error = `${e.error.code}: ${e.error.message} (during ${e.during})`;
        break;
      case 'episode.ended':
        ended = e;
        break;
    }
  });
  for (const f of x.findings)
    for (const r of new Set(f.rounds)) {
      const rd = rounds.get(r);
      if (rd && !rd.modes.includes(f.mode)) rd.modes.push(f.mode);
    }
  const list = [...rounds.values()].sort((a, b) => a.round - b.round);
  const end = ended as Extract<EpisodeEvent, { type: 'episode.ended' }> | null;
  const v = verification as EpisodeData['verification'];
  return {
    format: REPORT_FORMAT,
    id: start.episodeId,
    runId: start.runId,
    taskId: start.task.id,
    title: typeof record.title === 'string' ? record.title : start.task.id,
    objective: typeof record.objective === 'string' ? record.objective : '',
    interface: typeof record.interface === 'string' ? record.interface : 'cli',
    agent: start.agent,
    status: end?.status ?? 'running',
    score: end ? end.score : null,
    passed: v?.passed ?? false,
    sandboxes: sandboxes.length ? sandboxes : [first],
    rounds: list,
    handoffs,
    stages,
    verification: v,
    findings: x.findings,
    trace: x.trace
      ? { source: 'reverified', series: x.trace }
      : { source: 'recorded', series: recordedTrace(stages, v, list[list.length - 1]?.round ?? 0) },
    family: { parent: start.parent ?? null, children: x.children },
    provenance: provenanceOf(events),
    error,
    events: events.length,
    running: !end,
  };
}
