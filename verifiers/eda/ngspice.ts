/**
 * `spice.measure`: re-simulates the delivered netlist with ngspice in a fresh tool container, with
 * the task's own `.control` block appended (the agent's title, control block, analyses,
 * measurements and `.end` are stripped first, so it cannot fake the number), and judges one `meas`
 * result as a valued goal (`range`, `target`, `lower_is_better`, `higher_is_better`). The result is
 * read only after a marker sealed with the verification's nonce. A netlist that could supply the
 * number itself (`*#` commands, `.csparam`, `.include`) is refused, and a task can list the element
 * kinds it allows, so a filter made of a behavioural or controlled source fails naming it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import { goalExpected, goalsGiven, judgeValue, ONE_GOAL, valueGoalParams } from '../judge-value.js';
import type { Verdict } from '../types.js';
import { checkNetlist, ELEMENT_KINDS, prepareNetlist, readMeasurement } from './netlist.js';

/** Tool image with ngspice. */
export const CLI_IMAGE = 'engiloop/cli:latest';

const elementKind = z.enum(Object.keys(ELEMENT_KINDS) as [string, ...string[]]);

/** Params of `spice.measure`. Give exactly one of `range`, `target`, `lower_is_better`, `higher_is_better`. */
const SpiceMeasureParams = z
  .object({
    /**
     * Lines run inside `.control … .endc` (without those two lines), e.g.
     * `ac dec 50 1 1meg` and `meas ac f3db WHEN vdb(out)=-3.0103 FALL=1`.
     */
    control: z
      .string()
      .min(1)
      .refine((s) => !/^\s*\.(control|endc|end)\b/im.test(s), 'give only the lines inside .control … .endc'),
    /** Name of the `meas` (or `let`) result to check. */
    measure: z.string().regex(/^[a-z_][a-z0-9_]*$/i, 'a ngspice vector name'),
    ...valueGoalParams,
    /**
     * Element kinds the netlist may use, by letter: `[R, C, L, V]` for a passive R/L/C circuit
     * driven by a voltage source. `X` instances are allowed when they call a subcircuit defined in
     * the netlist (its body is held to the same list). With a list, `.func` and R/L/C values that
     * depend on node voltages, currents, frequency or time are refused too. Default: any element.
     */
    allowed_elements: z.array(elementKind).min(1).optional(),
    image: z.string().default(CLI_IMAGE),
    timeout_sec: z.number().positive().default(30),
  })
  .refine((p) => goalsGiven(p) === 1, ONE_GOAL);
export type SpiceMeasureParams = z.infer<typeof SpiceMeasureParams>;

const NETLIST = 'engiloop_verify.cir';

/** The `spice.measure` verifier. */
export const spiceMeasure = defineVerifier({
  name: 'spice.measure',
  description:
    "Re-simulates a SPICE netlist with ngspice under the task's own .control block and judges a meas result; refuses netlists that could supply the number, and elements the task does not allow",
  params: SpiceMeasureParams,
  sealed: true,
  async judge({ ctx, params: p, file, nonce }): Promise<Verdict> {
    const source = file.bytes.toString('utf8');
    const expected = goalExpected(p);
    const refusal = checkNetlist(source, { measure: p.measure, allowed: p.allowed_elements });
    if (refusal !== null)
      return {
        passed: false,
        score: 0,
        measured: { refused: refusal.attempt, line: refusal.line },
        expected,
        reason: `${file.rel} ${refusal.reason}`,
      };
    const marker = `@@ENGILOOP-RESULTS-${nonce}@@`;
    const net = prepareNetlist(source, { control: p.control, measure: p.measure, marker });
    const ignored = net.ignored.length > 0 ? ` (ignored from the netlist: ${net.ignored.join(', ')})` : '';
    const dir = await mkdtemp(path.join(tmpdir(), 'engiloop-spice-'));
    try {
      const host = path.join(dir, NETLIST);
      await writeFile(host, net.text);
      const res = await ctx.runTool(
        {
          image: p.image,
          command: `ngspice -b ${NETLIST}`,
          files: [{ hostPath: host, dest: NETLIST }],
          timeoutMs: p.timeout_sec * 1000,
        },
        ctx.signal,
      );
      if (res.timedOut)
        return {
          passed: false,
          score: 0,
          expected,
          reason: `ngspice timed out after ${p.timeout_sec} s on ${file.rel}`,
        };
      const reading = readMeasurement(res.stdout, res.stderr, p.measure, marker);
      if (!reading.ok)
        return {
          passed: false,
          score: 0,
          measured: null,
          expected,
          reason: `${file.rel}: ${reading.reason}${ignored}`,
        };
      const v = judgeValue(p.measure, reading.value, p);
      return { ...v, reason: `${v.reason}${ignored}` };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
});
