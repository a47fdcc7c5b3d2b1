/**
 * `render.compare`: renders the delivered `.blend` with Blender (fixed engine, samples and seed, at
 * the goal image's size) or takes a delivered PNG, and compares it pixel by pixel with the task's
 * goal render (`hidden/goal.png`). The score is BlenderGym's improvement from the start render
 * (`hidden/start.png`) towards the goal: 0 for the start scene, 1 for the goal. Goal and start
 * renders are made by Blender from the reference and start scenes with the same settings (see
 * test/fixtures/viz/make-renders.ts), so an unchanged or perfect scene scores 0 or 1 exactly.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { readDeliverable } from '../deliverable.js';
import { isArtifactInvalid } from '../errors.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { RENDER_PY } from './blender-py.js';
import { BLENDER_IMAGE, runBlender, sniffBlend } from './blender.js';
import { decodePng, diffFraction, improvement, isPng, type Rgba } from './png-diff.js';

const relPath = z
  .string()
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'a relative path in the task folder');

/** Params of `render.compare`. */
export const RenderCompareParams = z.object({
  /** Goal render in the task folder. */
  goal: relPath.default('hidden/goal.png'),
  /** Render of the start scene in the task folder; `null` scores 1 − the difference fraction. */
  start: relPath.nullable().default('hidden/start.png'),
  /** Engine used for a delivered `.blend` (the one the goal was rendered with). */
  engine: z.enum(['CYCLES', 'BLENDER_WORKBENCH']).default('CYCLES'),
  samples: z.number().int().positive().max(1024).default(16),
  seed: z.number().int().nonnegative().default(0),
  /** pixelmatch colour threshold (0 … 1): pixels closer than this count as equal. */
  threshold: z.number().min(0).max(1).default(0.1),
  /** Improvement at or above which the criterion passes. */
  min_improvement: z.number().min(0).max(1).default(0.5),
  /** Optional gate: the difference fraction must also be at most this. */
  max_diff: z.number().min(0).max(1).optional(),
  image: z.string().default(BLENDER_IMAGE),
  timeout_sec: z.number().positive().default(120),
});
export type RenderCompareParams = z.infer<typeof RenderCompareParams>;

const FILE = 'engiloop_scene.blend';
const OUT = 'engiloop_render.png';

/** Renders `hostPath` (a .blend) to PNG bytes at `size`, or a failure reason. */
export async function renderBlend(
  ctx: Pick<VerifierContext, 'runTool' | 'signal'>,
  hostPath: string,
  o: {
    engine: string;
    size: [number, number];
    samples: number;
    seed: number;
    timeoutMs: number;
    image?: string;
  },
): Promise<{ ok: true; png: Buffer; ms: number } | { ok: false; reason: string }> {
  const run = await runBlender<{ ok: boolean }>(ctx, {
    script: RENDER_PY,
    files: [{ hostPath, dest: FILE }],
    args: [
      FILE,
      `/workspace/${OUT}`,
      o.engine,
      String(o.size[0]),
      String(o.size[1]),
      String(o.samples),
      String(o.seed),
    ],
    timeoutMs: o.timeoutMs,
    xvfb: o.engine !== 'CYCLES',
    collect: [OUT],
    ...(o.image === undefined ? {} : { image: o.image }),
  });
  if (!run.ok) return run;
  const png = run.files?.[OUT];
  return png === undefined
    ? { ok: false, reason: 'Blender rendered no image' }
    : { ok: true, png, ms: run.ms };
}

async function taskImage(ctx: VerifierContext, rel: string): Promise<Rgba> {
  const full = path.resolve(ctx.taskDir, rel);
  const bytes = await readFile(full).catch(() => null);
  if (bytes === null) throw new Error(`task image ${rel} is missing from the task folder`);
  return decodePng(bytes);
}

/** The `render.compare` verifier. */
export const renderCompareVerifier: Verifier = {
  name: 'render.compare',
  description:
    'Renders a .blend (or takes a PNG) and scores its pixel difference from the goal render against the start render',
  params: RenderCompareParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = RenderCompareParams.parse(criterion.params);
    const tolerance = {
      threshold: p.threshold,
      min_improvement: p.min_improvement,
      ...(p.max_diff === undefined ? {} : { max_diff: p.max_diff }),
    };
    const expected = { goal: p.goal, improvement: `≥ ${p.min_improvement}` };
    const fail = (reason: string, measured?: unknown): Verdict => ({
      passed: false,
      score: 0,
      expected,
      tolerance,
      ...(measured === undefined ? {} : { measured }),
      reason,
    });
    const goal = await taskImage(ctx, p.goal);
    const start = p.start === null ? null : await taskImage(ctx, p.start);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return { ...read.verdict, expected, tolerance };
    let png = read.bytes;
    let how = 'delivered PNG';
    if (!isPng(read.bytes)) {
      const notBlend = sniffBlend(read.bytes);
      if (notBlend !== null) return fail(`${read.rel}: neither a PNG nor a .blend (${notBlend})`);
      const r = await renderBlend(ctx, read.path, {
        engine: p.engine,
        size: [goal.width, goal.height],
        samples: p.samples,
        seed: p.seed,
        timeoutMs: p.timeout_sec * 1000,
        image: p.image,
      });
      if (!r.ok) return fail(`${read.rel}: ${r.reason}`);
      png = r.png;
      how = `${p.engine === 'CYCLES' ? `Cycles, ${p.samples} samples, seed ${p.seed}` : 'Workbench'}, ${goal.width}×${goal.height}`;
    }
    let d: number;
    try {
      d = diffFraction(decodePng(png), goal, p.threshold);
    } catch (err) {
      if (isArtifactInvalid(err)) return fail(`${read.rel}: ${err.message}`);
      throw err;
    }
    const dStart = start === null ? 1 : diffFraction(start, goal, p.threshold);
    const imp = improvement(dStart, d);
    if (imp === null)
      return fail(`the start render ${p.start} does not differ from the goal: nothing to score`, {
        diff_fraction: d,
      });
    const gate = p.max_diff === undefined || d <= p.max_diff;
    const passed = imp >= p.min_improvement && gate;
    const pct = (x: number): string => `${(100 * x).toFixed(2)} %`;
    return {
      passed,
      score: imp,
      measured: {
        diff_fraction: Number(d.toFixed(5)),
        start_diff_fraction: Number(dStart.toFixed(5)),
        improvement: Number(imp.toFixed(4)),
      },
      expected,
      tolerance,
      reason:
        `${read.rel} (${how}): ${pct(d)} of pixels differ from ${p.goal} ` +
        `(start: ${pct(dStart)}) → improvement ${imp.toFixed(3)}, ${passed ? 'at least' : gate ? 'below' : 'but the difference exceeds max_diff; needed'} ${p.min_improvement}` +
        (p.max_diff === undefined ? '' : ` with ≤ ${pct(p.max_diff)} differing`),
    };
  },
};
