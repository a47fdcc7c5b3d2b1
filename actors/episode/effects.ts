/**
 * The effects the episode machine asks for, carried out against real sandboxes, agents and
 * verifiers. Each returns the event draft(s) that record its outcome; nothing here decides a state.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { EpisodeContext } from '../../machines/index.js';
import { parseDecision } from '../../machines/index.js';
import type { CommandResult, EventDraft, StageChecked } from '../../streams/events.js';
import type { Action, LoadedTask } from '../../tasks/index.js';
import type { Agent } from '../agents/index.js';
import type { Sandbox } from '../sandbox/types.js';
import { endSpan, startSpan } from '../telemetry.js';
import { observationText } from './observe.js';
import { mixStages } from './stages.js';
import type { EpisodeDeps, EpisodeOptions } from './ports.js';
import { readFile } from 'node:fs/promises';
import type { Span } from '@opentelemetry/api';

/** Live state the effects share within one episode (never folded: rebuilt from events on resume). */
export interface EffectScope {
  lt: LoadedTask;
  deps: EpisodeDeps;
  opts: EpisodeOptions;
  sandboxes: Map<string, Sandbox>;
  span: Span;
}

export async function provision(s: EffectScope): Promise<EventDraft> {
  const { task, dir } = s.lt;
  const ids: Record<string, string> = {};
  for (const [name, spec] of Object.entries(task.environment.sandboxes)) {
    const sb = await s.deps.sandboxes.create({
      name,
      image: spec.image,
      workdir: spec.workdir,
      cpus: spec.resources.cpus,
      memoryMb: spec.resources.memory_mb,
      pids: spec.resources.pids,
      labels: {
        'io.engiloop.run': s.opts.runId,
        'io.engiloop.episode': s.opts.episodeId,
        'io.engiloop.sandbox': name,
      },
      ...(s.opts.signal ? { signal: s.opts.signal } : {}),
    });
    s.sandboxes.set(name, sb);
    ids[name] = sb.containerId;
  }
  const first = Object.keys(task.environment.sandboxes)[0]!;
  const files = new Map<string, { dest: string; content: Buffer }[]>();
  const add = (sandbox: string, src: string, dest: string) =>
    readFile(join(dir, src)).then((content) => {
      files.set(sandbox, [...(files.get(sandbox) ?? []), { dest, content }]);
    });
  for (const f of task.inputs.files) await add(f.sandbox ?? first, f.src, f.dest ?? f.src);
  for (const img of task.inputs.reference_images) await add(first, img, img);
  for (const [name, list] of files) await s.sandboxes.get(name)!.putFiles(list);
  return { type: 'sandbox.provisioned', sandboxes: ids };
}

export async function observe(s: EffectScope, ctx: EpisodeContext): Promise<EventDraft> {
  let listing: string | null = null;
  if (ctx.history.length === 0) {
    const main = s.sandboxes.values().next().value;
    if (main) {
      const r = await main.exec('ls -la', { timeoutMs: 10_000, outputCapBytes: 16_384 });
      listing = r.stdout.trim();
    }
  }
  return { type: 'observation.recorded', round: ctx.round + 1, text: observationText(ctx, listing) };
}

export async function decide(
  s: EffectScope,
  ctx: EpisodeContext,
  agent: Agent,
  parent: Span,
  stateDigest: string,
): Promise<EventDraft> {
  const round = ctx.round + 1;
  const span = startSpan('agent.decide', { 'engiloop.task': ctx.taskId, 'engiloop.round': round }, parent);
  const t0 = performance.now();
  try {
    const raw = await agent.decide({
      task: s.lt.task,
      round,
      observation: ctx.observation ?? '',
      history: ctx.history,
      ...(s.opts.signal ? { signal: s.opts.signal } : {}),
    });
    const decision = parseDecision(raw);
    span.setAttribute('engiloop.decision', decision.kind);
    endSpan(span);
    return {
      type: 'agent.decided',
      round,
      raw: raw ?? null,
      decision,
      latencyMs: Math.round(performance.now() - t0),
      stateDigest,
    };
  } catch (e) {
    endSpan(span, e);
    throw e;
  }
}

function refused(message: string): CommandResult {
  return { stdout: '', stderr: message, exitCode: null, durationMs: 0, truncated: false, timedOut: false };
}

/** Runs one action; a GUI action in a CLI task or an unknown sandbox is answered, not thrown. */
export async function execute(
  s: EffectScope,
  action: Action,
  round: number,
  parent: Span,
): Promise<CommandResult> {
  const { task } = s.lt;
  if (action.type !== 'shell')
    return refused(
      `action "${action.type}" is not available in a ${task.interface.toUpperCase()} task; use {"type":"shell","command":"..."}`,
    );
  const name = action.sandbox ?? Object.keys(task.environment.sandboxes)[0]!;
  const sb = s.sandboxes.get(name);
  if (!sb) return refused(`no sandbox named "${name}" (have: ${[...s.sandboxes.keys()].join(', ')})`);
  const span = startSpan(
    'action',
    { 'engiloop.task': task.id, 'engiloop.round': round, 'engiloop.action': 'shell' },
    parent,
  );
  try {
    const r = await sb.exec(action.command, {
      timeoutMs: (action.timeout_sec ?? task.limits.action_timeout_sec) * 1000,
      outputCapBytes: task.limits.output_cap_bytes,
      ...(s.opts.signal ? { signal: s.opts.signal } : {}),
    });
    span.setAttributes({ 'engiloop.exit_code': r.exitCode ?? -1, 'engiloop.timed_out': r.timedOut });
    endSpan(span);
    return r;
  } catch (e) {
    endSpan(span, e);
    throw e;
  }
}

/**
 * Copies the deliverables out, stores them by digest, and runs the verifiers; stages with a weight
 * are mixed into the score from their latest checks.
 */
export async function verify(s: EffectScope, stages: ReadonlyMap<string, StageChecked>): Promise<EventDraft> {
  const { task } = s.lt;
  const first = Object.keys(task.environment.sandboxes)[0]!;
  const artifacts: Record<string, string | null> = {};
  for (const d of task.deliverables) {
    const bytes = await s.sandboxes.get(d.sandbox ?? first)!.getFile(d.path);
    if (bytes === null) {
      artifacts[d.path] = null;
      continue;
    }
    const dest = join(s.opts.artifactsDir, d.path);
    await mkdir(dirname(dest), { recursive: true });
    await writeFile(dest, bytes);
    artifacts[d.path] = await s.deps.blobs.put(bytes);
  }
  await mkdir(s.opts.artifactsDir, { recursive: true });
  const span = startSpan('verify', { 'engiloop.task': task.id }, s.span);
  try {
    const v = await s.deps.verify(s.lt, {
      artifactsDir: s.opts.artifactsDir,
      runTool: s.deps.runTool,
      ...(s.opts.signal ? { signal: s.opts.signal } : {}),
    });
    for (const verdict of v.verdicts) {
      const vs = startSpan(
        `verifier ${verdict.verifier}`,
        {
          'engiloop.criterion': verdict.criterion,
          'engiloop.passed': verdict.passed,
          'engiloop.score': verdict.score,
        },
        span,
      );
      vs.end();
    }
    const mixed = mixStages(task, stages, v);
    span.setAttributes({ 'engiloop.score': mixed.score, 'engiloop.passed': mixed.passed });
    endSpan(span);
    return {
      type: 'verification.completed',
      verdicts: v.verdicts,
      score: mixed.score,
      passed: mixed.passed,
      artifacts,
      ...(mixed.stages ? { stages: mixed.stages } : {}),
    };
  } catch (e) {
    endSpan(span, e);
    throw e;
  }
}
