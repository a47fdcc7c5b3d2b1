/**
 * The checks that weigh what a G-code file says about itself against its moves: `extruded_volume`
 * and `print_time` judge the values recomputed from the moves (and say so when the header claims
 * otherwise), `header` compares every claim the slicer's header makes (filament length, volume,
 * weight, print time, layer count, bounds) with the moves and fails on any that disagrees.
 */
import { fmt, judgeValue, pct, round, vec } from '../judge-value.js';
import { relativeError } from '../score.js';
import type { Verdict } from '../types.js';
import { bounds, verdict } from './gcode-checks.js';
import { clock, type GcodeClaims, type Said } from './gcode-claims-parse.js';
import type { CheckParams } from './gcode-params.js';
import type { GcodeProgram } from './gcode-parse.js';
import { estimatePrintTime } from './gcode-time.js';
import { blobText, filamentUsed, layersOf, toolNumber, workingMoves, type Filament } from './gcode-work.js';

/** Relative difference above which a claim that the check does not judge is still reported. */
const NOTE_REL = 0.02;
/** Filament left retracted at the end beyond which the reason says so, mm (slicers leave 1–10). */
const UNPRIMED_MM = 20;

const area = (d: number): number => Math.PI * (d / 2) ** 2;
/** Filament used by the moves (of one tool). */
const usedBy = (prog: GcodeProgram, tool?: number): Filament =>
  filamentUsed(
    tool === undefined ? prog.moves : prog.moves.filter((m) => m.tool === tool),
    prog.layerMarkers.length > 0,
  );

/** CuraEngine run alone leaves `;TIME:6666` and `;Filament used: 0m` unfilled in its header. */
function curaPlaceholder(c: GcodeClaims): boolean {
  return c.timeSec?.value === 6666 && c.filamentMm !== undefined && c.filamentMm.value === 0;
}

/** The print time the file claims: the header's, else Cura's last `;TIME_ELAPSED:`. */
function timeClaim(c: GcodeClaims): Said | undefined {
  return c.timeSec !== undefined && !curaPlaceholder(c) ? c.timeSec : c.elapsedSec;
}

const mm = (x: number): string => (Math.abs(x) >= 1000 ? `${fmt(x / 1000)} m` : `${fmt(x)} mm`);

/** `extruded_volume`: π r² × the filament every move (of the tool) feeds, retractions re-primed not counted. */
export function extrudedVolume(p: CheckParams<'extruded_volume'>, prog: GcodeProgram): Verdict {
  const tool = toolNumber(p.tool);
  const fil = usedBy(prog, tool);
  const len = fil.used;
  const vol = len * area(p.filament_diameter);
  const of = tool === undefined ? '' : ` by tool T${tool}`;
  if (len <= 0)
    return {
      passed: false,
      score: 0,
      measured: round(vol),
      reason: `no filament is extruded${of} (E advances ${fmt(len)} mm beyond re-priming its retractions)`,
    };
  const ratio = p.part_volume ? `, ${pct(vol / p.part_volume)} of the part's ${fmt(p.part_volume)} mm³` : '';
  const v = judgeValue(
    `filament extruded${of}`,
    vol,
    p,
    `${fmt(len)} mm of filament fed × π(${p.filament_diameter}/2)²${ratio}${fil.blobs.length ? `; ${blobText(fil)}` : ''}`,
  );
  const c = prog.claims;
  const said =
    c.filamentCm3 && c.filamentCm3.value > 0
      ? { v: c.filamentCm3.value * 1000, s: c.filamentCm3 }
      : undefined;
  const saidMm =
    c.filamentMm && c.filamentMm.value > 0
      ? { v: c.filamentMm.value * area(p.filament_diameter), s: c.filamentMm }
      : undefined;
  const claim = said ?? saidMm;
  const note =
    tool === undefined && claim && relativeError(vol, claim.v) > NOTE_REL
      ? `; the header claims ${fmt(claim.v)} mm³ ("${claim.s.text}", line ${claim.s.line}), ${pct(relativeError(vol, claim.v))} off the moves: not evidence`
      : '';
  // a retraction never re-primed (a huge one at the end) pulls filament back: it saves none
  const unprimed =
    fil.used - fil.net > UNPRIMED_MM
      ? `; the E values sum to only ${fmt(fil.net)} mm: ${fmt(fil.used - fil.net)} mm retracted and never re-primed gives no filament back`
      : '';
  return { ...v, reason: v.reason + unprimed + note };
}

/** `print_time`: the time recomputed from the moves with the machine's limits. */
export function printTime(p: CheckParams<'print_time'>, prog: GcodeProgram): Verdict {
  const t = estimatePrintTime(prog, p.machine);
  const how = [
    clock(t.seconds),
    `${prog.moves.length} moves at ≤ ${p.machine.acceleration} mm/s²`,
    ...(t.dwell > 0 ? [`${fmt(t.dwell)} s of dwell`] : []),
    ...(t.capped > 0 ? [`${t.capped} moves' F capped at the machine's max feed`] : []),
    ...(t.lowered.length > 0 ? [`lowered by the file: ${t.lowered.join(', ')}`] : []),
  ].join(', ');
  const raised =
    t.ignored.length > 0
      ? `; limits the file sets above the machine's are ignored (a file cannot make the printer faster): ${t.ignored.join(', ')}`
      : '';
  const v = judgeValue('print time recomputed from the moves', t.seconds, p, how);
  const claim = timeClaim(prog.claims);
  const note =
    claim && relativeError(claim.value, t.seconds) > NOTE_REL
      ? `; the header claims ${clock(claim.value)} ("${claim.text}", line ${claim.line}), ${pct(relativeError(claim.value, t.seconds))} off the moves: not evidence`
      : '';
  return {
    ...v,
    measured: { seconds: round(t.seconds), header_seconds: claim?.value ?? null },
    reason: v.reason + raised + note,
  };
}

interface Item {
  ok: boolean;
  text: string;
  measured: Record<string, unknown>;
}

/** `header`: every claim of the slicer's header against the moves. */
export function header(p: CheckParams<'header'>, prog: GcodeProgram): Verdict {
  const c = prog.claims;
  const len = usedBy(prog).used;
  const vol = len * area(p.filament_diameter);
  const items: Item[] = [];
  const within = (claim: number, got: number, tol: number): boolean => relativeError(got, claim) <= tol;
  const apart = (claim: number, got: number): string => `${pct(relativeError(got, claim))} apart`;
  if (c.filamentMm && c.filamentMm.value > 0) {
    const s = c.filamentMm;
    items.push({
      ok: within(s.value, len, p.rel_tol),
      text: `header claims ${mm(s.value)} of filament (line ${s.line}), the moves extrude ${mm(len)} (${apart(s.value, len)})`,
      measured: { header_filament_mm: s.value, moves_filament_mm: round(len) },
    });
  }
  if (c.filamentCm3 && c.filamentCm3.value > 0) {
    const s = c.filamentCm3;
    items.push({
      // the header rounds to 0.01 cm³
      ok: within(s.value, vol / 1000, p.rel_tol) || Math.abs(vol / 1000 - s.value) <= 0.005,
      text: `header claims ${fmt(s.value)} cm³ (line ${s.line}), the moves extrude ${fmt(vol / 1000)} cm³ (${apart(s.value, vol / 1000)})`,
      measured: { header_filament_cm3: s.value, moves_filament_cm3: round(vol / 1000) },
    });
  }
  if (c.filamentG && c.filamentG.value > 0) {
    const s = c.filamentG;
    const g = p.filament_density === undefined ? undefined : (vol / 1000) * p.filament_density;
    items.push({
      ok: g === undefined || within(s.value, g, p.rel_tol) || Math.abs(g - s.value) <= 0.005,
      text:
        g === undefined
          ? `header claims ${fmt(s.value)} g (line ${s.line}; not checked: give filament_density)`
          : `header claims ${fmt(s.value)} g (line ${s.line}), the moves extrude ${fmt(g)} g at ${p.filament_density} g/cm³ (${apart(s.value, g)})`,
      measured: { header_filament_g: s.value, ...(g === undefined ? {} : { moves_filament_g: round(g) }) },
    });
  }
  const time = timeClaim(c);
  if (time) {
    const t = estimatePrintTime(prog, p.machine).seconds;
    items.push({
      ok: within(time.value, t, p.time_rel_tol) || Math.abs(time.value - t) <= p.time_abs_tol,
      text: `header claims ${clock(time.value)} of printing (line ${time.line}), the moves take ${clock(t)} (${apart(time.value, t)})`,
      measured: { header_time_s: time.value, moves_time_s: round(t) },
    });
  }
  const extruding = workingMoves({ mode: 'fdm', exclude_types: [] }, prog).moves;
  const layers = layersOf(extruding);
  if (c.layerCount) {
    const s = c.layerCount;
    items.push({
      ok: s.value === layers.length,
      text: `header declares ${s.value} layers (line ${s.line}), the moves print ${layers.length}`,
      measured: { header_layers: s.value, moves_layers: layers.length },
    });
  }
  const b = c.bounds;
  if (b && [...b.min, ...b.max].every(Number.isFinite) && b.min.every((v, i) => v <= b.max[i]!)) {
    const got = bounds(extruding);
    const off = Math.max(
      ...b.min.map((v, i) => Math.abs(got.min[i]! - v)),
      ...b.max.map((v, i) => Math.abs(got.max[i]! - v)),
    );
    items.push({
      ok: off <= p.bounds_tol,
      text: `header declares bounds ${vec(b.min)}–${vec(b.max)} (line ${b.line}), the extruding moves span ${vec(got.min)}–${vec(got.max)} (up to ${fmt(off)} mm apart)`,
      measured: { header_bounds: b, moves_bounds: { min: got.min.map(round), max: got.max.map(round) } },
    });
  }
  const missing = p.require.filter(
    (r) =>
      !(r === 'filament'
        ? items.some((i) => 'header_filament_mm' in i.measured || 'header_filament_cm3' in i.measured)
        : r === 'time'
          ? time !== undefined
          : c.layerCount !== undefined),
  );
  const slicer = c.slicer ?? 'unknown slicer';
  const placeholder = curaPlaceholder(c)
    ? '; CuraEngine run alone leaves "Filament used: 0m" and "TIME:6666" unfilled'
    : '';
  const names = {
    filament: '"filament used" comment',
    time: 'print-time estimate',
    layer_count: 'layer count',
  };
  const bad = items.filter((i) => !i.ok);
  const measured = Object.assign({ slicer }, ...items.map((i) => i.measured)) as Record<string, unknown>;
  const cut = prog.finalNewline
    ? ''
    : `; the file ends mid-line at byte ${prog.bytes}: truncated, so a footer is cut off`;
  if (missing.length > 0)
    return {
      passed: false,
      score: 0,
      measured: { ...measured, moves_filament_mm: round(len) },
      reason: `no usable ${missing.map((r) => names[r]).join(', ')} from the slicer (${slicer}${placeholder}; the moves extrude ${mm(len)})${cut}${items.length ? `; ${items.map((i) => i.text).join('; ')}` : ''}`,
    };
  return verdict(bad.length === 0, {
    measured,
    expected: 'every header claim = the moves',
    tolerance: { rel: p.rel_tol, time_rel: p.time_rel_tol, time_abs: p.time_abs_tol, bounds: p.bounds_tol },
    reason:
      bad.length > 0
        ? `${slicer} header does not match the moves: ${bad.map((i) => i.text).join('; ')} → a forged or stale header${
            items.length > bad.length
              ? `; consistent: ${items
                  .filter((i) => i.ok)
                  .map((i) => i.text)
                  .join('; ')}`
              : ''
          }`
        : items.length === 0
          ? `${slicer} header makes no claim to compare with the moves (filament, time, layer count, bounds)${placeholder}`
          : `${slicer} header agrees with the moves: ${items.map((i) => i.text).join('; ')}${placeholder}`,
  });
}
