/**
 * Builds the provider-neutral transcript of one request from the agent input alone — task text,
 * the last N rounds and the current observation — so the same event log always yields the same
 * request body (replay checks it by hash).
 *
 * Layout: user(task text, observation 1) → assistant(tool calls of round 1) → user(tool results,
 * observation 2) → … → user(tool results, current observation, images). Tool calls are rebuilt
 * from the recorded decisions with ids `call_r<round>_<i>`; their results say "see the observation"
 * because the observation that follows carries them, so no output is sent twice. Images of past
 * rounds are not kept; only the current observation's images are sent.
 */
import type { RoundRecord } from '../../../machines/index.js';
import type { AgentInput } from '../types.js';
import { systemPrompt, taskText } from './prompt.js';
import { actionToCall, toolSpecs } from './tools.js';
import type { ImagePart, TextPart, ToolCall, Transcript, Turn } from './types.js';

/** Image types both providers accept. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const RESULT_POINTER = 'Executed; the result is in the observation below.';

function assistantTurn(r: RoundRecord): Turn {
  const d = r.decision;
  const id = (i: number) => `call_r${r.round}_${i + 1}`;
  switch (d.kind) {
    case 'act':
      return { role: 'assistant', text: null, toolCalls: d.actions.map((a, i) => actionToCall(a, id(i))) };
    case 'done':
      return {
        role: 'assistant',
        text: null,
        toolCalls: [{ id: id(0), name: 'done', args: d.message === undefined ? {} : { message: d.message } }],
      };
    case 'fail':
      return {
        role: 'assistant',
        text: null,
        toolCalls: [{ id: id(0), name: 'fail', args: { reason: d.reason } }],
      };
    case 'invalid':
      return {
        role: 'assistant',
        text: `(round ${r.round}: my output was not valid and was not executed)`,
        toolCalls: [],
      };
  }
}

function userTurn(pending: ToolCall[], parts: (TextPart | ImagePart)[]): Turn {
  return { role: 'user', toolResults: pending.map((c) => ({ id: c.id, text: RESULT_POINTER })), parts };
}

/**
 * The transcript for `input`, keeping at most `window` past rounds (the harness already caps
 * `input.history` at the task's `history_window`; `window` can only narrow it).
 */
export function buildTranscript(input: AgentInput, window: number): Transcript {
  const { task } = input;
  const rounds = window <= 0 ? [] : input.history.slice(-window);
  const head: TextPart[] = [{ kind: 'text', text: taskText(task), cache: true }];
  const first = rounds[0];
  if (first && first.round > 1)
    head.push({ kind: 'text', text: `[Rounds 1-${first.round - 1} are not shown.]` });

  const turns: Turn[] = [];
  let pending: ToolCall[] = [];
  rounds.forEach((r, i) => {
    turns.push(userTurn(pending, [...(i === 0 ? head : []), { kind: 'text', text: r.observation }]));
    const a = assistantTurn(r);
    turns.push(a);
    pending = a.role === 'assistant' ? a.toolCalls : [];
  });

  // A type both providers reject would fail the request for good: say so in text instead.
  const images: (TextPart | ImagePart)[] = (input.images ?? []).flatMap((img) =>
    IMAGE_TYPES.has(img.mediaType)
      ? [
          { kind: 'text' as const, text: `Image: ${img.name}` },
          { kind: 'image' as const, name: img.name, mediaType: img.mediaType, data: img.data },
        ]
      : [
          {
            kind: 'text' as const,
            text: `Image: ${img.name} cannot be shown (${img.mediaType} is not supported).`,
          },
        ],
  );
  const current: (TextPart | ImagePart)[] = [
    ...(rounds.length === 0 ? head : []),
    { kind: 'text', text: input.observation },
    ...images,
  ];
  // A second cache breakpoint at the end: while the window is not yet full, the next request
  // starts with this whole prefix.
  const last = current[current.length - 1];
  if (last) current[current.length - 1] = { ...last, cache: true };
  turns.push(userTurn(pending, current));

  return { system: systemPrompt(task.interface), tools: toolSpecs(task.interface), turns };
}
