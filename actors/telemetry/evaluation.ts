/**
 * `gen_ai.evaluation.result` span events on the episode span (semantic-conventions
 * docs/gen-ai/gen-ai-events.md "Event: gen_ai.evaluation.result"), with the opt-in only: one per
 * verdict, one for the task score, and one per stage check and its verdicts.
 *
 * - `gen_ai.evaluation.name`: the criterion id; `task_score` for the task's score; `stage_score`
 *   for a stage's.
 * - `gen_ai.evaluation.score.value`: the score in [0, 1].
 * - `gen_ai.evaluation.score.label`: `pass` or `fail` (the only two values).
 * - `gen_ai.evaluation.explanation`: the verdict's reason.
 * - engiloop's: `engiloop.verifier`, `engiloop.criterion.role`, `engiloop.measured`,
 *   `engiloop.expected`, `engiloop.tolerance` (JSON, at most 512 characters each), `engiloop.stage`
 *   and `engiloop.round` for stage checks.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import type { EpisodeEvent, VerdictData } from '../../streams/index.js';
import { genAiLatest } from './spans.js';

const EVENT = 'gen_ai.evaluation.result';
const MAX_JSON = 512;

function json(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  const s = JSON.stringify(v) ?? 'null';
  return s.length > MAX_JSON ? `${s.slice(0, MAX_JSON - 1)}…` : s;
}

function score(name: string, value: number, passed: boolean, extra: Attributes = {}): Attributes {
  return {
    'gen_ai.evaluation.name': name,
    'gen_ai.evaluation.score.value': value,
    'gen_ai.evaluation.score.label': passed ? 'pass' : 'fail',
    ...extra,
  };
}

function verdictAttrs(v: VerdictData, extra: Attributes): Attributes {
  const measured = json(v.measured);
  const expected = json(v.expected);
  const tolerance = json(v.tolerance);
  return score(v.criterion, v.score, v.passed, {
    'gen_ai.evaluation.explanation': v.reason,
    'engiloop.verifier': v.verifier,
    'engiloop.criterion.role': v.role,
    ...(measured === undefined ? {} : { 'engiloop.measured': measured }),
    ...(expected === undefined ? {} : { 'engiloop.expected': expected }),
    ...(tolerance === undefined ? {} : { 'engiloop.tolerance': tolerance }),
    ...extra,
  });
}

/** One event per final verdict and one for the task score (`task_score`). */
export function recordEvaluations(
  span: Span,
  verdicts: readonly VerdictData[],
  task: { score: number; passed: boolean },
): void {
  if (!genAiLatest() || !span.isRecording()) return;
  for (const v of verdicts) span.addEvent(EVENT, verdictAttrs(v, {}));
  span.addEvent(EVENT, score('task_score', task.score, task.passed));
}

/** One event per verdict of each `stage.checked` among `events`, and one for its score. */
export function recordStageChecks(span: Span, events: readonly EpisodeEvent[]): void {
  if (!genAiLatest() || !span.isRecording()) return;
  for (const e of events) {
    if (e.type !== 'stage.checked') continue;
    const at = { 'engiloop.stage': e.stage, 'engiloop.round': e.round };
    for (const v of e.verdicts) span.addEvent(EVENT, verdictAttrs(v, at));
    span.addEvent(
      EVENT,
      score('stage_score', e.score, e.passed, {
        ...at,
        ...(e.blockedBy ? { 'gen_ai.evaluation.explanation': `blocked by stage ${e.blockedBy.stage}` } : {}),
      }),
    );
  }
}
