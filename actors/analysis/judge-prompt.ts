/**
 * The LLM judge's request: the task objective, a compact timeline of the episode (one line per
 * event that matters, each led by its `#seq` and round so the answer can cite them), the
 * deterministic findings, and the taxonomy; one tool, `report_modes`, for the answer.
 */
import type { Transcript } from '../agents/index.js';
import type { ActionRecord, CommandResultRecord, VerdictData } from '../../streams/index.js';
import { MODES, type Finding } from './taxonomy.js';
import type { EpisodeView, Located } from './view.js';

/** Version of the judge's prompt text and tool; recorded as the call's `promptVersion`. */
export const JUDGE_PROMPT_VERSION = 1 as const;

/** Name of the tool the judge answers with. */
export const JUDGE_TOOL = 'report_modes';

/** Timeline size cap: past it, the middle is left out (the start and the end explain the most). */
const MAX_TIMELINE_CHARS = 24_000;

const SYSTEM = `You review one recorded episode of an AI agent that operated engineering software in a sandbox.
Deterministic detectors have already found some failure modes; they are listed and are final.
Your job: name any ADDITIONAL failure modes from the taxonomy that the timeline clearly shows.
- Use only mode ids from the taxonomy. Do not repeat a mode that was already found.
- For each mode, cite the rounds and the event numbers (#seq) that show it, and explain it in one line with the numbers.
- Report nothing you cannot point to in the timeline; an empty list is a good answer.
Answer by calling ${JUDGE_TOOL} exactly once.`;

const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…` : s);
const tail = (s: string, n: number): string => (s.length > n ? `…${s.slice(-n)}` : s);
const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ⏎ ').trim();
const json = (v: unknown): string => cut(JSON.stringify(v) ?? 'null', 120);

function actionText(a: ActionRecord): string {
  if (a.type === 'shell') return `$ ${cut(oneLine(a.command), 160)}${a.sandbox ? ` [${a.sandbox}]` : ''}`;
  return cut(JSON.stringify(a), 160);
}

function resultText(r: CommandResultRecord): string {
  const head = r.skipped
    ? 'skipped'
    : `exit ${r.exitCode ?? 'none'}${r.timedOut ? ', timed out' : ''}${r.fault ? `, ${r.fault.code}` : ''}`;
  const out = r.stdout.trim() ? ` stdout: ${tail(oneLine(r.stdout), 160)}` : '';
  const err = r.stderr.trim() ? ` stderr: ${tail(oneLine(r.stderr), 200)}` : '';
  return `(${head})${out}${err}`;
}

function verdictText(v: VerdictData): string {
  const nums = [
    v.measured === undefined ? '' : ` measured=${json(v.measured)}`,
    v.expected === undefined ? '' : ` expected=${json(v.expected)}`,
    v.tolerance === undefined ? '' : ` tolerance=${json(v.tolerance)}`,
  ].join('');
  return `${v.criterion} ${v.passed ? 'PASS' : 'FAIL'}${nums} (${cut(oneLine(v.reason), 160)})`;
}

/** One line for an event, or null for events the judge does not need (observations, snapshots). */
function line(l: Located): string | null {
  const e = l.event;
  const at = `#${l.seq} r${l.round}`;
  switch (e.type) {
    case 'agent.decided': {
      const d = e.decision;
      if (d.kind === 'act') return null; // its actions follow, one line each
      if (d.kind === 'done') return `${at} DONE${d.message ? `: ${cut(oneLine(d.message), 160)}` : ''}`;
      if (d.kind === 'fail') return `${at} FAIL: ${cut(oneLine(d.reason), 160)}`;
      return `${at} INVALID OUTPUT: ${cut(oneLine(d.error), 160)}`;
    }
    case 'action.executed':
      return `${at} ${actionText(e.action)} ${resultText(e.result)}`;
    case 'artifact.handed_off':
      return `${at} handoff ${e.from.sandbox}:${e.from.path} → ${e.to.sandbox}:${e.to.path} (${e.format}, ${e.bytes} B)`;
    case 'stage.checked':
      return `${at} stage ${e.stage} ${e.passed ? 'PASSED' : 'FAILED'} score ${e.score}${e.blockedBy ? ` (blocked by ${e.blockedBy.stage})` : ''}: ${e.verdicts.map(verdictText).join('; ')}`;
    case 'verification.completed':
      return `${at} FINAL VERIFICATION ${e.passed ? 'PASSED' : 'FAILED'} score ${e.score}: ${e.verdicts.map(verdictText).join('; ')}`;
    case 'agent.retried':
      return `${at} provider retry (attempt ${e.attempt}: ${cut(e.message, 120)})`;
    case 'sandbox.lost':
    case 'infra.failed':
      return `${at} ${e.type} during ${e.during}: ${e.error.code} ${cut(e.error.message, 120)}`;
    case 'episode.ended':
      return `${at} ENDED ${e.status}, score ${e.score ?? 'none'}, ${e.rounds} rounds`;
    default:
      return null;
  }
}

/** The episode's timeline, one line per event that matters; the middle left out past the cap. */
function timeline(v: EpisodeView): string {
  const lines = v.events.map(line).filter((s): s is string => s !== null);
  const total = lines.reduce((n, s) => n + s.length + 1, 0);
  if (total <= MAX_TIMELINE_CHARS) return lines.join('\n');
  const head: string[] = [];
  const rest: string[] = [];
  let used = 0;
  for (const s of lines) {
    if (used + s.length > MAX_TIMELINE_CHARS / 2) break;
    head.push(s);
    used += s.length + 1;
  }
  for (let i = lines.length - 1; i >= head.length; i--) {
    const s = lines[i]!;
    if (used + s.length > MAX_TIMELINE_CHARS) break;
    rest.unshift(s);
    used += s.length + 1;
  }
  const left = lines.length - head.length - rest.length;
  return [...head, `[… ${left} events left out …]`, ...rest].join('\n');
}

function findingsText(found: readonly Finding[]): string {
  if (found.length === 0) return '(none)';
  return found
    .map((f) => `- ${f.mode} (rounds ${f.rounds.join(', ')}; #${f.seqs.join(', #')}): ${f.explanation}`)
    .join('\n');
}

/** The request for one episode: system text, the episode, and the answer tool. */
export function judgeTranscript(v: EpisodeView, found: readonly Finding[]): Transcript {
  const taxonomy = Object.entries(MODES)
    .map(([id, m]) => `- ${id} [${m.owner}]: ${m.title}`)
    .join('\n');
  const user = [
    `Task ${v.task.id} (${v.task.interface}, ${v.task.type}); agent ${v.agent}.`,
    `## Objective\n${v.task.objective.trim()}`,
    `## Timeline (#seq rROUND event)\n${timeline(v)}`,
    `## Failure modes already found (final; do not repeat)\n${findingsText(found)}`,
    `## Taxonomy (id [owner]: meaning)\n${taxonomy}`,
  ].join('\n\n');
  return {
    system: SYSTEM,
    tools: [
      {
        name: JUDGE_TOOL,
        description: 'Report the additional failure modes the timeline shows (an empty list if none).',
        parameters: {
          type: 'object',
          properties: {
            modes: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  mode: { type: 'string', enum: Object.keys(MODES), description: 'a taxonomy id' },
                  rounds: { type: 'array', items: { type: 'integer' }, description: 'rounds that show it' },
                  seqs: { type: 'array', items: { type: 'integer' }, description: '#seq of those events' },
                  explanation: { type: 'string', description: 'one line, with the numbers' },
                },
                required: ['mode', 'rounds', 'seqs', 'explanation'],
              },
            },
          },
          required: ['modes'],
        },
      },
    ],
    turns: [{ role: 'user', toolResults: [], parts: [{ kind: 'text', text: user }] }],
  };
}
