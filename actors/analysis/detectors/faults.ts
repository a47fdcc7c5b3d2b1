/**
 * Faults that are not the agent's reasoning: lost sandboxes, provider retries and outages, harness
 * and infrastructure failures, verifier errors, task definition errors; and the agent's commands
 * that ran into the sandbox's limits.
 */
import type { ModeId, Finding } from '../taxonomy.js';
import { finding, ofType, type Detector, type EpisodeView, type Located } from '../view.js';

function grouped(mode: ModeId, at: Located[], explain: (n: number) => string): Finding[] {
  return at.length ? [finding(mode, 'faults', at, explain(at.length))] : [];
}

function infrastructure(v: EpisodeView): Finding[] {
  const lost = ofType(v, 'sandbox.lost');
  const retried = ofType(v, 'agent.retried');
  const failed = ofType(v, 'infra.failed');
  const provider = failed.filter((f) => f.event.error.code.startsWith('PROVIDER_'));
  const recording = failed.filter((f) => f.event.error.code.startsWith('LOG_'));
  const other = failed.filter((f) => !provider.includes(f) && !recording.includes(f));
  const first = (fs: Located[]) => {
    const e = fs[0]!.event;
    return e.type === 'infra.failed' || e.type === 'sandbox.lost'
      ? `${e.error.code} during ${e.during}: ${e.error.message.slice(0, 200)}`
      : '';
  };
  return [
    ...grouped(
      'infrastructure.sandbox_lost',
      lost,
      (n) => `${n} sandbox loss(es); the first: ${first(lost)}`,
    ),
    ...grouped('infrastructure.provider_retried', retried, (n) => {
      const e = retried[0]!.event;
      const why = e.type === 'agent.retried' ? `${e.status ?? e.code ?? ''} ${e.message}`.trim() : '';
      return `${n} provider retr${n === 1 ? 'y' : 'ies'}; the first: ${why.slice(0, 200)}`;
    }),
    ...grouped('infrastructure.provider_down', provider, () => first(provider)),
    ...grouped('harness.recording_failed', recording, () => first(recording)),
    ...grouped('infrastructure.fault', other, () => first(other)),
  ];
}

const VERIFIER_FAULT = /^verifier \S+ (timed out after|failed: )/;

function verdictFaults(v: EpisodeView): Finding[] {
  const verified = ofType(v, 'verification.completed').at(-1);
  if (!verified) return [];
  const out: Finding[] = [];
  for (const x of verified.event.verdicts) {
    const taskError =
      x.reason.startsWith('task error:') || /^verifier \S+ failed: unknown verifier/.test(x.reason);
    if (taskError)
      out.push(
        finding(
          'task.criterion_unevaluable',
          'faults',
          [verified],
          `${x.criterion}: ${x.reason.slice(0, 200)}`,
        ),
      );
    else if (VERIFIER_FAULT.test(x.reason))
      out.push(
        finding('harness.verifier_error', 'faults', [verified], `${x.criterion}: ${x.reason.slice(0, 200)}`),
      );
  }
  return out;
}

const LIMITS = new Set(['PIDS_EXHAUSTED', 'DISK_FULL', 'OUTPUT_CAP', 'FILE_CAP', 'REQUEST_CAP']);

function commandLimits(v: EpisodeView): Finding[] {
  const done = ofType(v, 'action.executed');
  const timedOut = done.filter((a) => a.event.result.timedOut || a.event.result.fault?.code === 'TIMEOUT');
  const limited = done.filter((a) => LIMITS.has(a.event.result.fault?.code ?? ''));
  const codes = [...new Set(limited.map((a) => a.event.result.fault!.code))];
  return [
    ...grouped(
      'execution.command_timeout',
      timedOut,
      (n) => `${n} command(s) ran past their time limit, first in round ${timedOut[0]!.round}`,
    ),
    ...grouped(
      'execution.resource_exhausted',
      limited,
      (n) => `${n} command(s) hit ${codes.join(', ')}, first in round ${limited[0]!.round}`,
    ),
  ];
}

/** Infrastructure, harness, task and sandbox-limit faults. */
export const faultsDetector: Detector = {
  name: 'faults',
  detect: (v) => [...infrastructure(v), ...verdictFaults(v), ...commandLimits(v)],
};
