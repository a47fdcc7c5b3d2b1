/**
 * `complete`: is the program whole? The last line is intact (a file cut mid-line is truncated),
 * the end sequence follows the last working move, and on a printer the extrusion reaches the top:
 * no layer markers after the last extruding move, as many layers as the header declares, the
 * part's top when the task gives it, and no jump in Z without extrusion in between.
 *
 * Layer markers and declared counts are claims of the file, used here only to fail it: a file
 * that declares more than its moves print is incomplete; one that declares less is caught by the
 * moves (`top_z`, the Z gaps, and the envelope check).
 */
import { fmt, round } from '../judge-value.js';
import type { Verdict } from '../types.js';
import { typical, verdict, withNotes } from './gcode-checks.js';
import { commandPattern, defaultEndSequence, describePattern, findEndSequence } from './gcode-end.js';
import type { CheckParams } from './gcode-params.js';
import type { GcodeProgram } from './gcode-parse.js';
import { blobText, filamentUsed, layersOf, workingMoves } from './gcode-work.js';

/** A last line that ends a program even without a line break after it. */
const END_MARK = /^(%|M0*2|M30)\b/i;

/** Judges `complete`. */
export function complete(p: CheckParams<'complete'>, prog: GcodeProgram): Verdict {
  const w = workingMoves(p, prog);
  const problems: string[] = [];
  const facts: string[] = [];
  const measured: Record<string, unknown> = { bytes: prog.bytes, final_newline: prog.finalNewline };
  const last = prog.lastLine;
  if (p.final_newline && !prog.finalNewline && !END_MARK.test(last.text))
    problems.push(
      `file ends mid-line at byte ${prog.bytes}: truncated (line ${last.line} is "${last.text.slice(0, 40)}" with no line break)`,
    );
  else facts.push(prog.finalNewline ? 'the last line is intact' : `ends with ${last.text}`);
  const lastMove = w.moves.at(-1);
  const kind = w.what.split(' (')[0]!.replace(/moves/, 'move');
  if (lastMove === undefined) problems.push(`no ${w.what}`);
  else {
    const lastIdx = prog.moves.lastIndexOf(lastMove);
    const patterns = (p.end_sequence ?? defaultEndSequence(w.mode, prog)).map((s) => commandPattern(s)!);
    const end = findEndSequence(patterns, prog, lastIdx);
    measured['end_sequence'] = { found: end.found, missing: end.missing.map((m) => m.text) };
    if (end.missing.length > 0)
      problems.push(
        `end sequence missing after the last ${kind} (line ${lastMove.line}): no ${end.missing.map(describePattern).join(', ')}`,
      );
    else facts.push(`end sequence ${end.found.map((f) => `${f.pattern} (line ${f.line})`).join(', ')}`);
    if (w.mode === 'fdm') {
      layers(p, prog, w.moves, lastIdx, problems, facts, measured);
      const fil = filamentUsed(w.pool, prog.layerMarkers.length > 0);
      measured['blobs'] = fil.blobs;
      if (fil.blobs.length > 0) problems.push(blobText(fil));
    }
  }
  return verdict(problems.length === 0, {
    measured,
    expected: {
      final_newline: p.final_newline,
      end_sequence: p.end_sequence ?? defaultEndSequence(w.mode, prog),
      ...(p.top_z !== undefined ? { top_z: p.top_z } : {}),
    },
    tolerance: {
      top: p.top_tol,
      ...(p.max_layer_gap !== undefined ? { max_layer_gap: p.max_layer_gap } : {}),
    },
    reason: withNotes(
      problems.length > 0
        ? `incomplete: ${problems.join('; ')}${facts.length ? ` (${facts.join('; ')})` : ''}`
        : `complete: ${facts.join('; ')}`,
      w,
    ),
  });
}

/** The FDM part: does the extrusion go all the way up? */
function layers(
  p: CheckParams<'complete'>,
  prog: GcodeProgram,
  moves: GcodeProgram['moves'],
  lastIdx: number,
  problems: string[],
  facts: string[],
  measured: Record<string, unknown>,
): void {
  const zs = layersOf(moves);
  const top = zs.at(-1)!;
  const after = prog.layerMarkers.filter((m) => m.atMove > lastIdx);
  const declared = prog.claims.layerCount;
  const markerTop = prog.layerMarkers.reduce((a, m) => (m.z !== undefined && m.z > a ? m.z : a), -Infinity);
  const ofCount = Math.max(declared?.value ?? 0, prog.layerMarkers.length);
  const ofTop = Math.max(p.top_z ?? -Infinity, markerTop);
  Object.assign(measured, {
    layers: zs.length,
    top_z: round(top),
    layer_markers: prog.layerMarkers.length,
    markers_after_last_extrusion: after.length,
    ...(declared ? { declared_layers: declared.value } : {}),
    ...(Number.isFinite(markerTop) ? { marker_top_z: markerTop } : {}),
  });
  const why: string[] = [];
  if (after.length > 0)
    why.push(`${after.length} layer marker(s) follow with no extrusion (first at line ${after[0]!.line})`);
  if (declared && zs.length < declared.value)
    why.push(`;LAYER_COUNT (line ${declared.line}) declares ${declared.value}`);
  if (p.top_z !== undefined && top < p.top_z - p.top_tol) why.push(`the part's top is Z ${fmt(p.top_z)}`);
  else if (Number.isFinite(markerTop) && top < markerTop - 1e-3 && after.length === 0)
    why.push(`the layer markers go up to ;Z:${fmt(markerTop)}`);
  if (why.length > 0) {
    const of = ofCount > zs.length ? ` of ${ofCount}` : '';
    const zOf = Number.isFinite(ofTop) && ofTop > top ? ` of ${fmt(ofTop)}` : '';
    problems.push(`extrusion stops at layer ${zs.length}${of} (z ${fmt(top)}${zOf}): ${why.join('; ')}`);
  } else if (declared && zs.length > declared.value)
    problems.push(
      `the moves print ${zs.length} layers, ;LAYER_COUNT (line ${declared.line}) declares ${declared.value}`,
    );
  else
    facts.push(
      `${zs.length} extruding layers up to Z ${fmt(top)}${declared ? ` (;LAYER_COUNT ${declared.value})` : ''}${prog.layerMarkers.length ? `, ${prog.layerMarkers.length} layer markers` : ''}`,
    );
  if (zs.length < 2) return;
  const steps = zs.slice(1).map((z, i) => ({ from: zs[i]!, to: z, d: z - zs[i]! }));
  const h = typical(steps.map((s) => s.d));
  const limit = p.max_layer_gap ?? 2.5 * h;
  const worst = steps.reduce((a, s) => (s.d > a.d ? s : a));
  measured['largest_layer_step'] = round(worst.d);
  if (worst.d > limit + 1e-6)
    problems.push(
      `no extrusion between Z ${fmt(worst.from)} and Z ${fmt(worst.to)} (a ${fmt(worst.d)} mm jump, about ${Math.max(1, Math.round(worst.d / h) - 1)} missing layers of ${fmt(h)} mm; allowed ${fmt(limit)}): extrusion stops mid-part and resumes above`,
    );
  else facts.push(`largest layer step ${fmt(worst.d)} mm (≤ ${fmt(limit)})`);
}
