/**
 * `file.format`: the deliverable is present, non-empty and of its declared format, judged by its
 * content (binary/ASCII STL, SPICE netlist, Verilog module), not by its name.
 */
import path from 'node:path';
import { z } from 'zod';
import { readDeliverable } from './deliverable.js';
import { canonicalFormat, sniff } from './sniff.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from './types.js';

/** Params of `file.format`. */
export const FileFormatParams = z.object({
  /**
   * Expected format (`stl`, `cir`, `spice`, `v`, `verilog`, …). Default: the deliverable's declared
   * format in task.yaml, else its file extension.
   */
  format: z.string().min(1).optional(),
});
export type FileFormatParams = z.infer<typeof FileFormatParams>;

/** The `file.format` verifier. */
export const fileFormat: Verifier = {
  name: 'file.format',
  description:
    'Deliverable is present, non-empty and of its declared format (by content: stl, spice, verilog)',
  params: FileFormatParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = FileFormatParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    const format = p.format ?? criterion.format ?? path.extname(read.rel).slice(1);
    if (format === '') return { passed: false, score: 0, reason: `no format declared for ${read.rel}` };
    const s = sniff(format, read.bytes);
    return {
      passed: s.ok,
      score: s.ok ? 1 : 0,
      measured: s.seen,
      expected: canonicalFormat(format),
      tolerance: 'content sniff',
      reason: `${read.rel} (${read.bytes.length} bytes): ${s.seen} → ${s.ok ? 'is' : 'is not'} ${canonicalFormat(format)}`,
    };
  },
};
