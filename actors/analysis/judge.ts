/**
 * The optional LLM judge: one model call over an ended episode that may add failure modes the
 * deterministic detectors did not find. Off by default — nothing calls it unless asked (`engiloop
 * analyze <episode> --judge <spec>`). It never overrides a deterministic finding: a mode already
 * found is dropped, nothing is removed, and every addition must cite rounds and events of the log
 * (see judge-answer.ts). The call is recorded like an agent call: an `AgentCallRecord` whose
 * `exchanges` names the redacted HTTP exchanges in the object store.
 *
 * @example
 * ```ts
 * const v = episodeView(events, seqs);
 * const j = await judgeEpisode(v, detect(v), { spec: 'openai:gpt-4o', blobs });
 * const modes = [...detect(v), ...j.added]; // j.added[i].detector === 'llm-judge'
 * ```
 */
import type { AgentCallRecord } from '../../streams/index.js';
import { callJudge, type JudgeCallOptions } from './judge-call.js';
import { checkAnswer, type Rejected } from './judge-answer.js';
import { judgeTranscript } from './judge-prompt.js';
import type { Finding } from './taxonomy.js';
import { passed } from './detect.js';
import type { EpisodeView } from './view.js';

export { JUDGE_DETECTOR, type Rejected } from './judge-answer.js';
export { JUDGE_PROMPT_VERSION } from './judge-prompt.js';
export type { JudgeCallOptions } from './judge-call.js';

/** What the judge made of one episode. */
export interface JudgeResult {
  /** Modes to add (detector `llm-judge`): known ids, not found before, citing events of the log. */
  added: Finding[];
  /** Proposals not added, with the reason (already found, unknown id, rounds not in the log…). */
  rejected: Rejected[];
  /** Why the answer could not be read at all; null when it could. The call is recorded either way. */
  unreadable: string | null;
  /** The provider call, as an agent call is recorded in `agent.decided.call`. */
  call: AgentCallRecord;
}

/**
 * Asks the model named by `o.spec` for failure modes beyond `found` (the episode's deterministic
 * findings, `detect(v)`), and keeps the ones the log supports.
 *
 * @throws AgentError from the provider call (see `callJudge`): an unknown spec, a missing key, the
 *   provider rejecting the request or staying down through the retries.
 */
export async function judgeEpisode(
  v: EpisodeView,
  found: readonly Finding[],
  o: JudgeCallOptions,
): Promise<JudgeResult> {
  const { reply, call } = await callJudge(judgeTranscript(v, found), o);
  return { ...checkAnswer(reply, v, found, passed(v)), call };
}
