/**
 * What the LLM judge's answer may add: each proposed mode is checked against the taxonomy, the
 * deterministic findings (never overridden: a mode already found is dropped) and the log (every
 * cited round and event must exist, and each event must belong to a cited round). Pure.
 */
import type { Reply } from '../agents/index.js';
import { JUDGE_TOOL } from './judge-prompt.js';
import { MODES, type Finding, type ModeId } from './taxonomy.js';
import type { EpisodeView } from './view.js';

/** Detector name of the judge's findings. */
export const JUDGE_DETECTOR = 'llm-judge';

/** A proposal the judge made that was not added, and why. */
export interface Rejected {
  /** The mode id as proposed (`?` when the proposal named none). */
  mode: string;
  why: string;
}

/** The proposals of an answer, checked. */
export interface CheckedAnswer {
  added: Finding[];
  rejected: Rejected[];
  /** Why the answer as a whole could not be read (no `report_modes` call, no JSON); else null. */
  unreadable: string | null;
}

/** The `modes` array of the reply: the tool call's arguments, else a JSON object in the text. */
function proposals(reply: Reply): unknown[] | string {
  const call = reply.calls.find((c) => c.name === JUDGE_TOOL);
  let args: unknown;
  if (call && 'args' in call) args = call.args;
  else if (call) return `${JUDGE_TOOL} arguments are not JSON: ${call.parseError}`;
  else {
    const m = /\{[\s\S]*\}/.exec(reply.text);
    if (!m)
      return reply.refusal ? `refused: ${reply.refusal}` : `no ${JUDGE_TOOL} call and no JSON in the text`;
    try {
      args = JSON.parse(m[0]);
    } catch {
      return `no ${JUDGE_TOOL} call, and the text's JSON does not parse`;
    }
  }
  const modes = (args as { modes?: unknown } | null)?.modes;
  return Array.isArray(modes) ? modes : `the answer has no "modes" array`;
}

const ints = (v: unknown): number[] | null =>
  Array.isArray(v) && v.every((n) => Number.isInteger(n)) ? (v as number[]) : null;

const sorted = (xs: readonly number[]): number[] => [...new Set(xs)].sort((a, b) => a - b);

/** Checks one proposal; a finding, or why not. */
function check(
  p: unknown,
  v: EpisodeView,
  taken: ReadonlySet<string>,
  agentModesAllowed: boolean,
): Finding | string {
  const o = (p ?? {}) as Record<string, unknown>;
  const mode = o.mode;
  if (typeof mode !== 'string' || !Object.hasOwn(MODES, mode)) return 'not a mode of the taxonomy';
  const info = MODES[mode as ModeId];
  if (taken.has(mode)) return 'already found by the deterministic detectors (the judge never overrides them)';
  if (info.owner === 'agent' && !agentModesAllowed)
    return 'the episode passed: agent-owned modes explain failures only';
  const rounds = ints(o.rounds);
  const seqs = o.seqs === undefined ? [] : ints(o.seqs);
  if (!rounds || rounds.length === 0) return 'cites no rounds (a list of round numbers is required)';
  if (!seqs) return 'seqs is not a list of event numbers';
  const explanation = typeof o.explanation === 'string' ? o.explanation.trim().split('\n')[0]! : '';
  if (!explanation) return 'no explanation';
  const known = new Set(v.events.map((l) => l.round));
  const badRounds = rounds.filter((r) => !known.has(r));
  if (badRounds.length)
    return `round(s) ${badRounds.join(', ')} not in the log (rounds ${Math.min(...known)}–${Math.max(...known)})`;
  const bySeq = new Map(v.events.map((l) => [l.seq, l.round]));
  const badSeqs = seqs.filter((s) => !bySeq.has(s));
  if (badSeqs.length) return `event(s) #${badSeqs.join(', #')} not in the log`;
  const elsewhere = seqs.filter((s) => !rounds.includes(bySeq.get(s)!));
  if (elsewhere.length)
    return `event(s) #${elsewhere.map((s) => `${s} (round ${bySeq.get(s)})`).join(', #')} outside the cited rounds`;
  // Without events named, the rounds' decisions are the evidence cited.
  const cited = seqs.length
    ? seqs
    : v.events.filter((l) => l.event.type === 'agent.decided' && rounds.includes(l.round)).map((l) => l.seq);
  if (cited.length === 0) return 'the cited rounds have no decision to cite and no event was named';
  return {
    mode: mode as ModeId,
    owner: info.owner,
    seqs: sorted(cited),
    rounds: sorted(rounds),
    explanation,
    detector: JUDGE_DETECTOR,
  };
}

/**
 * The findings the reply may add to `found` (the deterministic findings of `v`), and the rest
 * rejected with a reason. Agent-owned modes are accepted only for an episode that did not pass, as
 * `detect` does; a mode proposed twice is added once.
 */
export function checkAnswer(
  reply: Reply,
  v: EpisodeView,
  found: readonly Finding[],
  passed: boolean,
): CheckedAnswer {
  const ps = proposals(reply);
  if (typeof ps === 'string') return { added: [], rejected: [], unreadable: ps };
  const taken = new Set<string>(found.map((f) => f.mode));
  const added: Finding[] = [];
  const rejected: Rejected[] = [];
  for (const p of ps) {
    const r = check(p, v, taken, !passed);
    const mode = (p as { mode?: unknown } | null)?.mode;
    const name = typeof mode === 'string' ? mode : '?';
    if (typeof r === 'string') {
      rejected.push({ mode: name, why: added.some((f) => f.mode === name) ? 'proposed twice' : r });
      continue;
    }
    added.push(r);
    taken.add(r.mode);
  }
  return { added, rejected, unreadable: null };
}
