/**
 * `spice.measure`: re-simulates the delivered netlist with ngspice in a fresh tool container, with
 * the task's own `.control` block appended (the agent's control block, analyses, measurements and
 * `.end` are stripped first, so it cannot fake the number), and checks one `meas` result: inside a
 * range (a feasibility gate) or close to a target (a quality score, 1 at ≤ 2 % relative error, 0 at
 * ≥ 20 % by default).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { readDeliverable } from '../deliverable.js';
import { closeness, DEFAULT_CLOSENESS, relativeError } from '../score.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { prepareNetlist, readMeasurement } from './netlist.js';
import { ClosenessSchema, RangeSchema } from '../params.js';

/** Tool image with ngspice. */
export const CLI_IMAGE = 'engiloop/cli:latest';

/** Params of `spice.measure`. Give exactly one of `range` and `target`. */
export const SpiceMeasureParams = z
  .object({
    /**
     * Lines run inside `.control … .endc` (without those two lines), e.g.
     * `ac dec 50 1 1meg` and `meas ac f3db WHEN vdb(out)=-3.0103 FALL=1`.
     */
    control: z
      .string()
      .min(1)
      .refine((s) => !/^\s*\.(control|endc|end)\b/im.test(s), 'give only the lines inside .control … .endc'),
    /** Name of the `meas` result to check. */
    measure: z.string().regex(/^[a-z_][a-z0-9_]*$/i, 'a ngspice vector name'),
    /** Inclusive range the value must fall in (a gate). */
    range: RangeSchema.optional(),
    /** Target value, scored by closeness of the relative error. */
    target: z.number().optional(),
    /** Relative errors of full and zero score for `target`. */
    closeness: ClosenessSchema.default(DEFAULT_CLOSENESS),
    /** Unit for readable reasons, e.g. `Hz` or `dB`. */
    unit: z.string().default(''),
    image: z.string().default(CLI_IMAGE),
    timeout_sec: z.number().positive().default(30),
  })
  .refine(
    (p) => (p.range === undefined) !== (p.target === undefined),
    'give exactly one of range and target',
  );
export type SpiceMeasureParams = z.infer<typeof SpiceMeasureParams>;

const NETLIST = 'engiloop_verify.cir';

/** The `spice.measure` verifier. */
export const spiceMeasure: Verifier = {
  name: 'spice.measure',
  description:
    "Re-simulates a SPICE netlist with ngspice under the task's own .control block and checks a meas result",
  params: SpiceMeasureParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = SpiceMeasureParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    const netlist = prepareNetlist(read.bytes.toString('utf8'), p.control, p.measure);
    const dir = await mkdtemp(path.join(tmpdir(), 'engiloop-spice-'));
    try {
      const host = path.join(dir, NETLIST);
      await writeFile(host, netlist);
      const res = await ctx.runTool(
        {
          image: p.image,
          command: `ngspice -b ${NETLIST}`,
          files: [{ hostPath: host, dest: NETLIST }],
          timeoutMs: p.timeout_sec * 1000,
        },
        ctx.signal,
      );
      const expected = p.target ?? p.range;
      if (res.timedOut)
        return {
          passed: false,
          score: 0,
          expected,
          reason: `ngspice timed out after ${p.timeout_sec} s on ${read.rel}`,
        };
      const reading = readMeasurement(res.stdout, res.stderr, p.measure);
      if (!reading.ok) return { passed: false, score: 0, expected, reason: `${read.rel}: ${reading.reason}` };
      return judge(p, reading.value);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

function judge(p: SpiceMeasureParams, v: number): Verdict {
  const u = p.unit === '' ? '' : ` ${p.unit}`;
  if (p.range !== undefined) {
    const { min, max } = p.range;
    const ok = (min === undefined || v >= min) && (max === undefined || v <= max);
    const want = min === undefined ? `≤ ${max}` : max === undefined ? `≥ ${min}` : `in [${min}, ${max}]`;
    return {
      passed: ok,
      score: ok ? 1 : 0,
      measured: v,
      expected: p.range,
      tolerance: 'inclusive range',
      reason: `${p.measure} = ${fmt(v)}${u}, required ${want}${u} → ${ok ? 'inside' : 'outside'} the range`,
    };
  }
  const target = p.target as number;
  const err = relativeError(v, target);
  const score = closeness(err, p.closeness);
  return {
    passed: score > 0,
    score,
    measured: v,
    expected: target,
    tolerance: { rel_full: p.closeness.full, rel_zero: p.closeness.zero },
    reason: `${p.measure} = ${fmt(v)}${u} vs target ${fmt(target)}${u}: ${pct(err)} off → score ${Number(score.toFixed(3))} (1 at ≤ ${pct(p.closeness.full)}, 0 at ≥ ${pct(p.closeness.zero)})`,
  };
}

const fmt = (x: number): string => String(Number(x.toPrecision(6)));
const pct = (x: number): string => `${Number((100 * x).toPrecision(3))} %`;
