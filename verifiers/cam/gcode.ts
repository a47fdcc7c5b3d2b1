/**
 * `gcode.check`: reopens delivered G-code with its own interpreter (`parseGcode`) and checks one
 * property, chosen by `check`: `envelope`, `min_z`, `layer_height`, `rapids` (no G0 below the
 * stock top), `feeds`, `tool_changes`, `extruded_volume`, `print_time`, `header` (the slicer's
 * claims against the moves), `complete` (end sequence, last line, extrusion up to the top) or
 * `holes` (drilled positions). Working moves are FDM moves that advance the filament (travels are
 * G1 too) or CNC feed moves (G1/G2/G3 and drill plunges); `tool` limits a check to one tool.
 *
 * What the file says about itself (header, comments) is never the evidence: every value is
 * recomputed from the moves, and a claim that disagrees is named in the reason.
 */
import { defineVerifier } from '../define.js';
import type { Verdict } from '../types.js';
import { extrudedVolume, header, printTime } from './gcode-claims.js';
import { envelope, feeds, holes, layerHeight, minZ, rapids, toolChanges } from './gcode-checks.js';
import { complete } from './gcode-complete.js';
import { GcodeCheckParams } from './gcode-params.js';
import { parseGcode, type GcodeProgram } from './gcode-parse.js';

/** Judges one check on an interpreted program. */
function judgeCheck(p: GcodeCheckParams, prog: GcodeProgram): Verdict {
  switch (p.check) {
    case 'envelope':
      return envelope(p, prog);
    case 'min_z':
      return minZ(p, prog);
    case 'layer_height':
      return layerHeight(p, prog);
    case 'rapids':
      return rapids(p, prog);
    case 'feeds':
      return feeds(p, prog);
    case 'tool_changes':
      return toolChanges(p, prog);
    case 'extruded_volume':
      return extrudedVolume(p, prog);
    case 'print_time':
      return printTime(p, prog);
    case 'header':
      return header(p, prog);
    case 'complete':
      return complete(p, prog);
    case 'holes':
      return holes(p, prog);
  }
}

/** The `gcode.check` verifier. */
export const gcodeCheck = defineVerifier({
  name: 'gcode.check',
  description:
    'Reopens G-code (FDM or CNC) and recomputes from the moves: envelope, min Z, layer height, rapids below stock, feeds, tool changes, extruded volume, print time, header claims, completeness, holes',
  params: GcodeCheckParams,
  judge({ params: p, file }): Verdict {
    // A parse failure or time-out becomes a failing verdict in defineVerifier, naming the file.
    const prog = parseGcode(file.bytes.toString('latin1'), p.parse_timeout_sec * 1000);
    const v = judgeCheck(p, prog);
    return { ...v, reason: `${file.rel}: ${v.reason}` };
  },
});
