/**
 * Running Blender's background Python on a delivered file in a fresh engiloop/blender container,
 * and reading the JSON it prints. A timeout, a crash or no JSON is a `BlenderRunFailure`, which
 * callers turn into a failing verdict.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { blendContainer } from '../magic.js';
import type { ToolRequest, VerifierContext } from '../types.js';
import { JSON_BEGIN, JSON_END } from './blender-py.js';

/** Tool image with Blender 3.4. */
export const BLENDER_IMAGE = 'engiloop/blender:latest';

/** The first bytes of a `.blend`: plain (`BLENDER`), gzip (Blender < 3) or zstd (Blender ≥ 3). */
export function sniffBlend(bytes: Buffer): string | null {
  return blendContainer(bytes) === null
    ? 'not a .blend file (no "BLENDER" header, nor a gzip or zstd stream)'
    : null;
}

/** What a Blender run gave: the JSON object, or a readable failure. */
export type BlenderRun<T> = { ok: true; value: T; ms: number } | { ok: false; reason: string };

/** One Blender run: a Python script over input files, with arguments after `--`. */
export interface BlenderJob {
  script: string;
  /** Host path → name in /workspace. */
  files: { hostPath: string; dest: string }[];
  args: string[];
  timeoutMs: number;
  /** Run under `xvfb-run -a` (OpenGL engines: Workbench, EEVEE). */
  xvfb?: boolean;
  collect?: string[];
  image?: string;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `job` and parses the JSON between the markers; `{ error }` in it becomes a failure. */
export async function runBlender<T>(
  ctx: Pick<VerifierContext, 'runTool' | 'signal'>,
  job: BlenderJob,
): Promise<BlenderRun<T> & { files?: Record<string, Buffer> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'engiloop-blender-'));
  try {
    const script = path.join(dir, 'engiloop_verify.py');
    await writeFile(script, job.script);
    const cmd = [
      ...(job.xvfb ? ['xvfb-run', '-a', '-s', quote('-screen 0 640x480x24')] : []),
      'blender -b --factory-startup -noaudio --python engiloop_verify.py --',
      ...job.args.map(quote),
    ].join(' ');
    const req: ToolRequest = {
      image: job.image ?? BLENDER_IMAGE,
      command: cmd,
      files: [{ hostPath: script, dest: 'engiloop_verify.py' }, ...job.files],
      timeoutMs: job.timeoutMs,
      ...(job.collect ? { collect: job.collect } : {}),
    };
    const t0 = performance.now();
    const res = await ctx.runTool(req, ctx.signal);
    const ms = performance.now() - t0;
    if (res.timedOut) return { ok: false, reason: `Blender timed out after ${job.timeoutMs / 1000} s` };
    const a = res.stdout.lastIndexOf(JSON_BEGIN);
    const b = res.stdout.lastIndexOf(JSON_END);
    if (a < 0 || b < a) {
      const tail = `${res.stderr}\n${res.stdout}`.trim().split('\n').slice(-4).join(' | ').slice(0, 400);
      return { ok: false, reason: `Blender printed no result (exit ${res.exitCode}): ${tail}` };
    }
    const value = JSON.parse(res.stdout.slice(a + JSON_BEGIN.length, b)) as T & { error?: string };
    if (typeof value === 'object' && value !== null && typeof value.error === 'string')
      return { ok: false, reason: value.error };
    return { ok: true, value, ms, files: res.files };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
