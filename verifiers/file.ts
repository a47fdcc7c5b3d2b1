/**
 * `file.format`: the deliverable is present, non-empty and of its declared format, judged by its
 * content (binary/ASCII STL, SPICE netlist, Verilog module), not by its name.
 */
import path from 'node:path';
import { z } from 'zod';
import { defineVerifier } from './define.js';
import { canonicalFormat } from './formats.js';
import { sniff } from './sniff.js';
import type { Verdict } from './types.js';

/** Params of `file.format`. */
const FileFormatParams = z.object({
  /**
   * Expected format (`stl`, `cir`, `spice`, `v`, `verilog`, …). Default: the deliverable's declared
   * format in task.yaml, else its file extension.
   */
  format: z.string().min(1).optional(),
});
export type FileFormatParams = z.infer<typeof FileFormatParams>;

/** The `file.format` verifier. */
export const fileFormat = defineVerifier({
  name: 'file.format',
  description:
    'Deliverable is present, non-empty and of its declared format, judged by content (stl, step, dxf, ifc, blend, glb, gcode, spice, verilog, KiCad, …)',
  params: FileFormatParams,
  judge({ params: p, criterion, file }): Verdict {
    const format = p.format ?? criterion.format ?? path.extname(file.rel).slice(1);
    if (format === '') return { passed: false, score: 0, reason: `no format declared for ${file.rel}` };
    const s = sniff(format, file.bytes);
    return {
      passed: s.ok,
      score: s.ok ? 1 : 0,
      measured: s.seen,
      expected: canonicalFormat(format),
      tolerance: 'content sniff',
      reason: `${file.rel} (${file.bytes.length} bytes): ${s.seen} → ${s.ok ? 'is' : 'is not'} ${canonicalFormat(format)}`,
    };
  },
});
