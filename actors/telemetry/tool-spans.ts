/**
 * `execute_tool {action type}` spans, one per action the episode runs (shell, GUI actions,
 * hand-offs), with the opt-in only (semantic-conventions docs/gen-ai/gen-ai-spans.md "Execute tool
 * span"): `gen_ai.operation.name` `execute_tool`, `gen_ai.tool.name` (the action type),
 * `gen_ai.tool.type` `function` (engiloop runs what the agent asked for); engiloop's
 * `engiloop.task`, `engiloop.round`, `engiloop.action.index`, `engiloop.sandbox`,
 * `engiloop.exit_code`, `engiloop.timed_out`, and for a hand-off `engiloop.handoff.from`/`to`/
 * `digest`/`bytes`/`format`. With `captureContent()`, `gen_ai.tool.call.arguments` and
 * `gen_ai.tool.call.result`. A non-zero exit is the tool's answer, not a span error: the status
 * is ERROR only when running the action threw. Without the opt-in these spans record nothing and
 * the shell action keeps its earlier `action` span (effects.ts).
 */
import { SpanKind, type Span } from '@opentelemetry/api';
import type { Action } from '../../tasks/index.js';
import { captureContent, genAiLatest, nonRecording, startSpan } from './spans.js';

/** Where the action runs. */
export interface ToolContext {
  taskId: string;
  round: number;
  index: number;
  /** The task's first sandbox: where actions without a sandbox of their own run. */
  defaultSandbox: string;
}

/** Starts the span of one action under `parent` (the round's span). */
export function startToolSpan(action: Action, o: ToolContext, parent: Span): Span {
  if (!genAiLatest() || !parent.isRecording()) return nonRecording();
  const { type, ...args } = action;
  const where =
    action.type === 'handoff'
      ? { 'engiloop.handoff.from': action.from, 'engiloop.handoff.to': action.to }
      : { 'engiloop.sandbox': (action.type === 'shell' ? action.sandbox : undefined) ?? o.defaultSandbox };
  return startSpan(
    `execute_tool ${type}`,
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': type,
      'gen_ai.tool.type': 'function',
      'engiloop.task': o.taskId,
      'engiloop.round': o.round,
      'engiloop.action.index': o.index,
      ...where,
      ...(captureContent() ? { 'gen_ai.tool.call.arguments': JSON.stringify(args) } : {}),
    },
    parent,
    { kind: SpanKind.INTERNAL },
  );
}

/** What an action gave, as far as its span records it. */
export interface ToolResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  skipped?: boolean;
  blobs?: { stdout?: string; stderr?: string };
  fault?: { code: string };
}

/** What a hand-off moved (`artifact.handed_off`). */
export interface HandoffFacts {
  digest: string;
  bytes: number;
  format: string;
}

/** Records the action's result on its span and ends it. */
export function endToolSpan(span: Span, r: ToolResult, handoff?: HandoffFacts): void {
  if (span.isRecording()) {
    span.setAttributes({
      'engiloop.exit_code': r.exitCode ?? -1,
      'engiloop.timed_out': r.timedOut,
      ...(r.fault ? { 'engiloop.fault': r.fault.code } : {}),
      ...(handoff
        ? {
            'engiloop.handoff.digest': handoff.digest,
            'engiloop.handoff.bytes': handoff.bytes,
            'engiloop.handoff.format': handoff.format,
          }
        : {}),
    });
    if (captureContent())
      span.setAttribute(
        'gen_ai.tool.call.result',
        JSON.stringify({
          exit_code: r.exitCode,
          stdout: r.stdout,
          stderr: r.stderr,
          ...(r.blobs ? { blobs: r.blobs } : {}),
        }),
      );
  }
  span.end();
}
