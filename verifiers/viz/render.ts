/**
 * `render.compare`: renders the delivered `.blend` with Blender (fixed engine, samples and seed, at
 * the goal image's size) or takes a delivered PNG, and compares it pixel by pixel with the task's
 * goal render (`hidden/goal.png`). The score is BlenderGym's improvement from the start render
 * (`hidden/start.png`) towards the goal: 0 for the start scene, 1 for the goal. Goal and start
 * renders are made by Blender from the reference and start scenes with the same settings (see
 * test/fixtures/viz/make-renders.ts), so an unchanged or perfect scene scores 0 or 1 exactly.
 *
 * A delivered PNG that copies an image the agent was given (the task's `inputs`), and a `.blend`
 * that packs one (a backdrop showing the goal picture), fail as copies before any scoring: see
 * `copy-check.ts` for what counts as a copy.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { pct } from '../judge-value.js';
import { taskFile } from '../params.js';
import type { Verdict, VerifierContext } from '../types.js';
import { MAX_PACKED, RENDER_PY } from './blender-py.js';
import { BLENDER_IMAGE, runBlender, sniffBlend } from './blender.js';
import { findCopy, inputFiles, type CopyFound, type InputFile } from './copy-check.js';
import { isPng } from '../magic.js';
import { decodePng, diffFraction, improvement, type Rgba } from './png-diff.js';

/** Params of `render.compare`. */
export const RenderCompareParams = z.object({
  /** Goal render in the task folder. */
  goal: taskFile().default('hidden/goal.png'),
  /** Render of the start scene in the task folder; `null` scores 1 − the difference fraction. */
  start: taskFile().nullable().default('hidden/start.png'),
  /** Engine used for a delivered `.blend` (the one the goal was rendered with). */
  engine: z.enum(['CYCLES', 'BLENDER_WORKBENCH']).default('CYCLES'),
  /** Cycles samples per pixel. */
  samples: z.number().int().positive().max(1024).default(16),
  /** Cycles seed. */
  seed: z.number().int().nonnegative().default(0),
  /** pixelmatch colour threshold (0 … 1): pixels closer than this count as equal. */
  threshold: z.number().min(0).max(1).default(0.1),
  /** Improvement at or above which the criterion passes. */
  min_improvement: z.number().min(0).max(1).default(0.5),
  /** Optional gate: the difference fraction must also be at most this. */
  max_diff: z.number().min(0).max(1).optional(),
  /** What the agent was given, and when a render counts as a copy of it. */
  copies: z
    .object({
      /**
       * Task files or folders the agent was given, besides the task's own `inputs` (its input files
       * and reference images, always compared). A delivered PNG that copies one of their images,
       * or a `.blend` that packs one, fails. Default: `inputs` (skipped when there is no such folder).
       */
      inputs: z.array(taskFile()).default(['inputs']),
      /** pixelmatch threshold of the near-copy comparison. Default 0.05. */
      threshold: z.number().min(0).max(1).default(0.05),
      /** A render with at most this fraction of pixels differing from an input is a copy. Default 0.005. */
      max_diff: z.number().min(0).max(1).default(0.005),
    })
    .default({ inputs: ['inputs'], threshold: 0.05, max_diff: 0.005 }),
  /** Tool image with Blender. */
  image: z.string().default(BLENDER_IMAGE),
  /** Time limit of the Blender render, in seconds. */
  timeout_sec: z.number().positive().default(120),
});
export type RenderCompareParams = z.infer<typeof RenderCompareParams>;

const FILE = 'engiloop_scene.blend';
const OUT = 'engiloop_render.png';
const PACKED = Array.from({ length: MAX_PACKED }, (_, i) => `engiloop_packed_${i}`);

/** An image packed into a rendered `.blend`: its bytes, Blender name and original path. */
export interface PackedImage {
  image: string;
  filepath: string;
  bytes: Buffer;
}

/** Renders `hostPath` (a .blend) to PNG bytes at `size`, with the images it packs, or a failure reason. */
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
): Promise<{ ok: true; png: Buffer; packed: PackedImage[]; ms: number } | { ok: false; reason: string }> {
  const run = await runBlender<{ ok: boolean; packed?: { file: string; image: string; filepath: string }[] }>(
    ctx,
    {
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
      collect: [OUT, ...PACKED],
      ...(o.image === undefined ? {} : { image: o.image }),
    },
  );
  if (!run.ok) return run;
  const png = run.files?.[OUT];
  if (png === undefined) return { ok: false, reason: 'Blender rendered no image' };
  const packed = (run.value.packed ?? []).flatMap((p) => {
    const bytes = run.files?.[p.file];
    return bytes === undefined ? [] : [{ image: p.image, filepath: p.filepath, bytes }];
  });
  return { ok: true, png, packed, ms: run.ms };
}

async function taskImage(ctx: VerifierContext, rel: string): Promise<Rgba | string> {
  const bytes = await readFile(path.resolve(ctx.taskDir, rel)).catch(() => null);
  if (bytes === null) return `task error: image ${rel} is missing from the task folder`;
  try {
    return decodePng(bytes);
  } catch (err) {
    return `task error: image ${rel}: ${(err as Error).message}`;
  }
}

const copyText = (c: CopyFound, threshold: number): string =>
  c.how === 'byte-identical'
    ? 'byte-identical'
    : `near-identical: ${pct(c.diff)} of pixels differ by more than ${threshold}${c.scaled ? ', after scaling it to the same size' : ''}`;

/** The `render.compare` verifier. */
export const renderCompareVerifier = defineVerifier({
  name: 'render.compare',
  description:
    'Renders a .blend (or takes a PNG) and scores its pixel difference from the goal render against the start render; copies of input images fail',
  params: RenderCompareParams,
  async judge({ ctx, params: p, file }): Promise<Verdict> {
    const tolerance = {
      threshold: p.threshold,
      min_improvement: p.min_improvement,
      ...(p.max_diff === undefined ? {} : { max_diff: p.max_diff }),
      copy: { threshold: p.copies.threshold, max_diff: p.copies.max_diff },
    };
    const expected = { goal: p.goal, improvement: `≥ ${p.min_improvement}`, copy_of_input: 'none' };
    const fail = (reason: string, measured?: unknown): Verdict => ({
      passed: false,
      score: 0,
      expected,
      tolerance,
      ...(measured === undefined ? {} : { measured }),
      reason,
    });
    const goal = await taskImage(ctx, p.goal);
    if (typeof goal === 'string') return fail(goal);
    const start = p.start === null ? null : await taskImage(ctx, p.start);
    if (typeof start === 'string') return fail(start);
    let inputs: InputFile[] | undefined;
    const given = async (): Promise<InputFile[]> =>
      (inputs ??= await inputFiles(ctx.taskDir, [...(ctx.inputs ?? []), ...p.copies.inputs]));

    let png = file.bytes;
    let how = 'delivered PNG';
    let image: Rgba;
    if (isPng(file.bytes)) {
      // Decoding failures become a failing verdict naming the file (defineVerifier).
      image = decodePng(file.bytes);
      const copy = findCopy(file.bytes, image, await given(), p.copies);
      if (copy !== null)
        return fail(
          `${file.rel}: render is a copy of input image ${copy.rel} (${copyText(copy, p.copies.threshold)}); a render must come from the scene`,
          { copy_of: copy.rel, copy: copy.how, diff_from_input: Number(copy.diff.toFixed(6)) },
        );
    } else {
      const notBlend = sniffBlend(file.bytes);
      if (notBlend !== null) return fail(`${file.rel}: neither a PNG nor a .blend (${notBlend})`);
      const r = await renderBlend(ctx, file.path, {
        engine: p.engine,
        size: [goal.width, goal.height],
        samples: p.samples,
        seed: p.seed,
        timeoutMs: p.timeout_sec * 1000,
        image: p.image,
      });
      if (!r.ok) return fail(`${file.rel}: ${r.reason}`);
      for (const pk of r.packed) {
        const pkPng = isPng(pk.bytes) ? safeDecode(pk.bytes) : undefined;
        const copy = findCopy(pk.bytes, pkPng, await given(), p.copies);
        if (copy !== null)
          return fail(
            `${file.rel}: the scene packs input image ${copy.rel} as image "${pk.image}" (${copyText(copy, p.copies.threshold)}); a scene that shows the given picture is not the scene asked for`,
            { packs: copy.rel, image: pk.image, copy: copy.how },
          );
      }
      png = r.png;
      image = decodePng(png);
      how = `${p.engine === 'CYCLES' ? `Cycles, ${p.samples} samples, seed ${p.seed}` : 'Workbench'}, ${goal.width}×${goal.height}`;
    }
    const d = diffFraction(image, goal, p.threshold);
    const dStart = start === null ? 1 : diffFraction(start, goal, p.threshold);
    const imp = improvement(dStart, d);
    if (imp === null)
      return fail(`task error: the start render ${p.start} does not differ from the goal: nothing to score`, {
        diff_fraction: d,
      });
    const gate = p.max_diff === undefined || d <= p.max_diff;
    const passed = imp >= p.min_improvement && gate;
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
        `${file.rel} (${how}): ${pct(d)} of pixels differ from ${p.goal} ` +
        `(start: ${pct(dStart)}) → improvement ${imp.toFixed(3)}, ${passed ? 'at least' : gate ? 'below' : 'but the difference exceeds max_diff; needed'} ${p.min_improvement}` +
        (p.max_diff === undefined ? '' : ` with ≤ ${pct(p.max_diff)} differing`),
    };
  },
});

function safeDecode(bytes: Buffer): Rgba | undefined {
  try {
    return decodePng(bytes);
  } catch {
    return undefined;
  }
}
