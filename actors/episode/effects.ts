/**
 * The effects the episode machine asks for, carried out against real sandboxes, agents and
 * verifiers. Each returns the event draft(s) that record its outcome; nothing here decides a state.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EpisodeContext } from '../../machines/index.js';
import { parseDecision } from '../../machines/index.js';
import type { AgentCallRecord, EventDraft, StageChecked } from '../../streams/index.js';
import type { CommandResult } from '../sandbox/index.js';
import { defaultSandbox, readTaskFile, sizeText, type Action } from '../../tasks/index.js';
import { imageMediaType } from '../../verifiers/index.js';
import { viewImageRequest, type Agent } from '../agents/index.js';
import {
  endSpan,
  genAiLatest,
  recordChat,
  recordEvaluations,
  startLegacySpan,
  startSpan,
} from '../telemetry.js';
import { notRun, observationText } from './observe.js';
import { executeGui, observeGui, startDesktops } from './gui-effects.js';
import { handoff } from './handoff.js';
import { collectDeliverable, writeRefusals } from './collect.js';
import { mixStages } from './stages.js';
import type { Span } from '@opentelemetry/api';
import type { EffectScope } from './scope.js';

export type { EffectScope } from './scope.js';

export async function provision(s: EffectScope): Promise<EventDraft> {
  const { task, dir } = s.lt;
  const ids: Record<string, string> = {};
  // The sandboxes of a multi-software task start side by side; each is kept as soon as it exists,
  // so a failure of one still leaves the others to be removed.
  const made = await Promise.allSettled(
    Object.entries(task.environment.sandboxes).map(async ([name, spec]) => {
      const sb = await s.deps.sandboxes.create({
        name,
        image: spec.image,
        workdir: spec.workdir,
        cpus: spec.resources.cpus,
        memoryMb: spec.resources.memory_mb,
        pids: spec.resources.pids,
        diskMb: task.limits.disk_mb,
        // A desktop sandbox's app and desktop are services; elsewhere only the declared ones stay.
        services: spec.desktop ? null : spec.services,
        labels: {
          'io.engiloop.run': s.opts.runId,
          'io.engiloop.episode': s.opts.episodeId,
          'io.engiloop.sandbox': name,
        },
        ...(s.opts.signal ? { signal: s.opts.signal } : {}),
      });
      s.sandboxes.set(name, sb);
    }),
  );
  const failed = made.find((m): m is PromiseRejectedResult => m.status === 'rejected');
  if (failed) throw failed.reason;
  // Back in declaration order: "the first sandbox" means the first declared, whichever started first.
  const ordered = Object.keys(task.environment.sandboxes).map((n) => [n, s.sandboxes.get(n)!] as const);
  s.sandboxes.clear();
  for (const [n, sb] of ordered) {
    s.sandboxes.set(n, sb);
    ids[n] = sb.containerId;
  }
  const first = defaultSandbox(task);
  const files = new Map<string, { dest: string; content: Buffer }[]>();
  // Through the task folder's own check (a link out of it, a FIFO, a device, an oversized file
  // are refused here too, not only at load): a task fault, so infra_error, never the agent's.
  const add = (sandbox: string, src: string, dest: string, field: string) =>
    readTaskFile(dir, src, { field }).then((content) => {
      files.set(sandbox, [...(files.get(sandbox) ?? []), { dest, content }]);
    });
  for (const [i, f] of task.inputs.files.entries())
    await add(f.sandbox ?? first, f.src, f.dest ?? f.src, `inputs.files[${i}].src`);
  for (const [i, img] of task.inputs.reference_images.entries())
    await add(first, img, img, `inputs.reference_images[${i}]`);
  for (const [name, list] of files) await s.sandboxes.get(name)!.putFiles(list);
  await startDesktops(s);
  return { type: 'sandbox.provisioned', sandboxes: ids };
}

/** Largest image passed to an agent (providers reject bigger ones). */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Images the previous round's actions asked to see (`view_image`), read from the sandboxes. */
async function requestedImages(
  s: EffectScope,
  ctx: EpisodeContext,
): Promise<{ images: StoredImage[]; notes: string[] }> {
  const images: StoredImage[] = [];
  const notes: string[] = [];
  const first = defaultSandbox(s.lt.task);
  for (const { action } of ctx.history.at(-1)?.results ?? []) {
    const want = viewImageRequest(action);
    if (!want) continue;
    const sb = s.sandboxes.get(want.sandbox ?? first);
    const r = sb ? await sb.readFile(want.path, MAX_IMAGE_BYTES) : null;
    const bytes = r?.ok ? r.value : null;
    const type = bytes ? imageMediaType(bytes) : null;
    if (r && !r.ok && r.refusal.kind === 'too_large')
      notes.push(`view_image ${want.path}: larger than 5 MiB (${sizeText(r.refusal.size)})`);
    else if (r && !r.ok && r.refusal.kind !== 'missing') notes.push(`view_image ${r.refusal.message}`);
    else if (!bytes) notes.push(`view_image ${want.path}: no such file`);
    else if (!type) notes.push(`view_image ${want.path}: not a PNG or JPEG`);
    else {
      images.push({
        name: want.path,
        mediaType: type,
        digest: await s.deps.blobs.put(bytes),
        bytes: bytes.length,
      });
      notes.push(`view_image ${want.path}: attached (${bytes.length} bytes)`);
    }
  }
  return { images, notes };
}

export async function observe(s: EffectScope, ctx: EpisodeContext): Promise<EventDraft> {
  if (s.lt.task.interface === 'gui') return observeGui(s, ctx);
  let listing: string | null = null;
  if (ctx.history.length === 0) {
    const main = s.sandboxes.values().next().value;
    if (main) {
      const r = await main.exec('ls -la', { timeoutMs: 10_000, outputCapBytes: 16_384 });
      listing = r.stdout.trim();
    }
  }
  const { images, notes } = await requestedImages(s, ctx);
  const text = observationText(ctx, listing) + (notes.length ? `\n${notes.join('\n')}` : '');
  return { type: 'observation.recorded', round: ctx.round + 1, text, ...(images.length ? { images } : {}) };
}

/** An image to show the agent, as stored with the observation. */
export type StoredImage = NonNullable<
  Extract<EventDraft, { type: 'observation.recorded' }>['images']
>[number];

/**
 * Asks the agent. A model-backed agent's provider retries are emitted as `agent.retried` events
 * (also when it finally throws: a provider that stays down is an infrastructure fault), and its
 * tokens, cost and redacted exchanges (stored as a blob) go on the `agent.decided` draft.
 */
export async function decide(
  s: EffectScope,
  ctx: EpisodeContext,
  agent: Agent,
  parent: Span,
  stateDigest: string,
  images: readonly StoredImage[],
  emit: (d: EventDraft) => Promise<void>,
): Promise<EventDraft> {
  const round = ctx.round + 1;
  const span = startSpan('agent.decide', { 'engiloop.task': ctx.taskId, 'engiloop.round': round }, parent);
  const t0 = performance.now();
  let called = 0;
  // The provider call's `chat` span (GenAI opt-in only) runs from the ask to the answer.
  const chatAt = (exchanges?: string) => ({
    conversationId: s.opts.episodeId,
    round,
    startMs: performance.timeOrigin + t0,
    endMs: performance.timeOrigin + (called || performance.now()),
    ...(exchanges ? { exchanges } : {}),
  });
  const recordRetries = async () => {
    for (const r of agent.lastCall?.retries ?? [])
      await emit({
        type: 'agent.retried',
        round,
        attempt: r.attempt,
        ...(r.status === undefined ? {} : { status: r.status }),
        ...(r.code === undefined ? {} : { code: r.code }),
        message: r.message,
        delayMs: r.delayMs,
      });
  };
  let raw: unknown;
  try {
    const shown = await Promise.all(
      images.map(async (i) => ({
        name: i.name,
        mediaType: i.mediaType,
        data: await s.deps.blobs.get(i.digest),
      })),
    );
    raw = await agent.decide({
      task: s.lt.task,
      round,
      observation: ctx.observation ?? '',
      history: ctx.history,
      ...(shown.length ? { images: shown } : {}),
      ...(s.opts.signal ? { signal: s.opts.signal } : {}),
    });
    called = performance.now();
  } catch (e) {
    if (agent.lastCall?.round === round) recordChat(span, agent.lastCall, chatAt());
    endSpan(span, e);
    await recordRetries();
    throw e;
  }
  await recordRetries();
  const decision = parseDecision(raw);
  const c = agent.lastCall;
  const call: AgentCallRecord | undefined = c
    ? {
        provider: c.provider,
        model: c.model,
        usage: c.usage,
        costUsd: c.costUsd,
        latencyMs: Math.round(c.latencyMs),
        retries: c.retries.length,
        stopReason: c.stopReason,
        promptVersion: c.promptVersion,
        exchanges: await s.deps.blobs.put(Buffer.from(JSON.stringify(c.exchanges))),
      }
    : undefined;
  span.setAttribute('engiloop.decision', decision.kind);
  if (c && call) recordChat(span, c, chatAt(call.exchanges));
  if (call && !genAiLatest())
    span.setAttributes({
      'gen_ai.usage.input_tokens': call.usage.input,
      'gen_ai.usage.output_tokens': call.usage.output,
      'gen_ai.request.model': call.model,
    });
  endSpan(span);
  return {
    type: 'agent.decided',
    round,
    raw: raw ?? null,
    decision,
    latencyMs: Math.round(performance.now() - t0),
    stateDigest,
    ...(call ? { call } : {}),
  };
}

/** Runs one action; a GUI action in a CLI task or an unknown sandbox is answered, not thrown. */
export async function execute(
  s: EffectScope,
  action: Action,
  round: number,
  parent: Span,
): Promise<CommandResult> {
  const { task } = s.lt;
  if (action.type === 'handoff') return (await handoff(s, action)).result;
  if (action.type !== 'shell') {
    if (task.interface === 'gui') return executeGui(s, action);
    return notRun(
      `action "${action.type}" is not available in a CLI task; use {"type":"shell","command":"..."}`,
    );
  }
  if (task.interface === 'gui')
    return notRun(
      'shell commands are not available in a GUI task: use click, double_click, drag, move, scroll, key, type or wait',
    );
  const name = action.sandbox ?? defaultSandbox(task);
  const sb = s.sandboxes.get(name);
  if (!sb) return notRun(`no sandbox named "${name}" (have: ${[...s.sandboxes.keys()].join(', ')})`);
  const span = startLegacySpan(
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
 * Copies the deliverables out (streamed and capped: see collect.ts), stores them by digest, and
 * runs the verifiers; stages with a weight are mixed into the score from their latest checks.
 */
export async function verify(s: EffectScope, stages: ReadonlyMap<string, StageChecked>): Promise<EventDraft> {
  const { task } = s.lt;
  const artifacts: Record<string, string | null> = {};
  const sources: Record<string, string> = {};
  const refusals: Record<string, string> = {};
  for (const d of task.deliverables) {
    const dest = join(s.opts.artifactsDir, d.path);
    const got = await collectDeliverable(s, d, dest);
    if (got.kind === 'refused') refusals[d.path] = got.refusal.message;
    if (got.kind !== 'stored') {
      artifacts[d.path] = null;
      continue;
    }
    if (d.sandbox === '*') sources[d.path] = got.sandbox;
    artifacts[d.path] = got.digest;
  }
  await writeRefusals(s.opts.artifactsDir, refusals);
  await mkdir(s.opts.artifactsDir, { recursive: true });
  const span = startSpan('verify', { 'engiloop.task': task.id }, s.span);
  try {
    const v = await s.deps.verify(s.lt, {
      artifactsDir: s.opts.artifactsDir,
      runTool: s.deps.runTool,
      ...(s.opts.signal ? { signal: s.opts.signal } : {}),
      ...(s.opts.seals ? { seal: s.opts.seals } : {}),
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
    recordEvaluations(s.span, v.verdicts, mixed);
    span.setAttributes({ 'engiloop.score': mixed.score, 'engiloop.passed': mixed.passed });
    endSpan(span);
    return {
      type: 'verification.completed',
      verdicts: v.verdicts,
      score: mixed.score,
      passed: mixed.passed,
      artifacts,
      ...(mixed.stages ? { stages: mixed.stages } : {}),
      ...(Object.keys(sources).length ? { sources } : {}),
    };
  } catch (e) {
    endSpan(span, e);
    throw e;
  }
}
