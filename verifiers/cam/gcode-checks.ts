/**
 * The checks of `gcode.check`, as pure functions of the params and the interpreted program.
 */
import { closeness, relativeError } from '../score.js';
import type { Verdict } from '../types.js';
import type { GcodeCheckParams } from './gcode.js';
import type { GcodeProgram, Move } from './gcode-parse.js';

type Box = { min: [number, number, number]; max: [number, number, number] };

/** The moves that do work: FDM moves that advance filament across XY, or CNC feed/drill moves. */
export function workingMoves(
  p: GcodeCheckParams,
  prog: GcodeProgram,
): { moves: Move[]; mode: 'fdm' | 'cnc'; what: string } {
  const mode = p.mode ?? (prog.moves.some((m) => m.e !== 0) ? 'fdm' : 'cnc');
  if (mode === 'cnc')
    return {
      mode,
      moves: prog.moves.filter((m) => m.kind !== 'rapid'),
      what: 'cutting moves (G1/G2/G3, drilling)',
    };
  const layered = p.layers_only && prog.moves.some((m) => m.inLayers);
  const moves = prog.moves.filter(
    (m) =>
      m.e > 1e-9 &&
      (m.from[0] !== m.to[0] || m.from[1] !== m.to[1]) &&
      (!layered || m.inLayers) &&
      !p.exclude_types.some((t) => m.type.includes(t.toLowerCase())),
  );
  const left = [layered ? 'start G-code' : '', ...p.exclude_types].filter((s) => s !== '').join(', ');
  return { mode, moves, what: `extruding moves${left ? ` (without ${left})` : ''}` };
}

function bounds(moves: Move[]): Box {
  const b: Box = { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
  for (const m of moves)
    for (const q of [m.from, m.to])
      for (let i = 0; i < 3; i++) {
        b.min[i] = Math.min(b.min[i]!, q[i]!);
        b.max[i] = Math.max(b.max[i]!, q[i]!);
      }
  return b;
}

const ok = (passed: boolean, v: Omit<Verdict, 'passed' | 'score'>): Verdict => ({
  passed,
  score: passed ? 1 : 0,
  ...v,
});
const fail = (reason: string): Verdict => ({ passed: false, score: 0, reason });

/** Judges one check. */
export function judgeCheck(p: GcodeCheckParams, prog: GcodeProgram): Verdict {
  const w = workingMoves(p, prog);
  const noWork = (): Verdict => fail(`no ${w.what} in ${prog.lines} lines (${prog.moves.length} moves)`);
  switch (p.check) {
    case 'envelope': {
      if (w.moves.length === 0) return noWork();
      const b = bounds(w.moves);
      const size = b.max.map((v, i) => v - b.min[i]!);
      const centre = [(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2];
      const t = p.abs_tol;
      const bad: string[] = [];
      if (p.expected) {
        const off = Math.max(
          ...p.expected.min.map((v, i) => Math.abs(b.min[i]! - v)),
          ...p.expected.max.map((v, i) => Math.abs(b.max[i]! - v)),
        );
        if (off > t) bad.push(`bounds differ from ${box(p.expected)} by up to ${fmt(off)}`);
      }
      if (p.within) {
        const out = Math.max(
          ...p.within.min.map((v, i) => v - b.min[i]!),
          ...p.within.max.map((v, i) => b.max[i]! - v),
        );
        if (out > t) bad.push(`leaves ${box(p.within)} by ${fmt(out)}`);
      }
      if (p.size) {
        const off = Math.max(...p.size.map((v, i) => Math.abs(size[i]! - v)));
        if (off > t) bad.push(`size ${vec(size)} differs from ${vec(p.size)} by up to ${fmt(off)}`);
      }
      if (p.center) {
        const off = Math.hypot(centre[0]! - p.center[0], centre[1]! - p.center[1]);
        if (off > t) bad.push(`XY centre ${vec(centre)} is ${fmt(off)} from ${vec(p.center)}`);
      }
      return ok(bad.length === 0, {
        measured: {
          min: b.min.map(round),
          max: b.max.map(round),
          size: size.map(round),
          center: centre.map(round),
        },
        expected: {
          ...(p.expected ?? {}),
          ...(p.within ? { within: p.within } : {}),
          ...(p.size ? { size: p.size } : {}),
          ...(p.center ? { center: p.center } : {}),
        },
        tolerance: { abs: t },
        reason: `${w.moves.length} ${w.what} span ${box(b)} (size ${vec(size)}, XY centre ${vec(centre)}) → ${bad.length === 0 ? `matches (±${t})` : bad.join('; ')}`,
      });
    }
    case 'min_z': {
      if (w.moves.length === 0) return noWork();
      const z = w.moves.reduce((a, m) => Math.min(a, m.from[2], m.to[2]), Infinity);
      const line = w.moves.find((m) => Math.min(m.from[2], m.to[2]) === z)!.line;
      const passed = p.target !== undefined ? Math.abs(z - p.target) <= p.abs_tol : inRange(z, p.range!);
      return ok(passed, {
        measured: round(z),
        expected: p.target ?? p.range,
        tolerance: p.target !== undefined ? { abs: p.abs_tol } : 'inclusive range',
        reason: `lowest Z of the ${w.what} is ${fmt(z)} (line ${line}) vs ${p.target !== undefined ? `${fmt(p.target)} ± ${p.abs_tol}` : rangeText(p.range!)}`,
      });
    }
    case 'layer_height':
      return layerHeight(p, w.moves, w.what);
    case 'rapids': {
      // a rapid straight up out of the cut (same XY, ending above the top) is a retract, not a crash
      const retract = (m: Move): boolean =>
        m.from[0] === m.to[0] && m.from[1] === m.to[1] && m.to[2] >= p.stock_top - 1e-6;
      const hits = prog.moves.filter(
        (m) =>
          m.kind === 'rapid' &&
          Math.min(m.from[2], m.to[2]) < p.stock_top - 1e-6 &&
          !retract(m) &&
          (p.footprint === undefined || crosses(m, p.footprint)),
      );
      const lowest =
        hits.length === 0 ? undefined : hits.reduce((a, m) => Math.min(a, m.from[2], m.to[2]), Infinity);
      return ok(hits.length === 0, {
        measured: {
          rapids_below_top: hits.length,
          lowest_z: lowest === undefined ? null : round(lowest),
          lines: hits.slice(0, 5).map((m) => m.line),
        },
        expected: { rapids_below_top: 0, stock_top: p.stock_top },
        tolerance: 0,
        reason:
          hits.length === 0
            ? `no G0 rapid goes below the stock top Z ${p.stock_top}${p.footprint ? ' over the stock' : ''} (${prog.moves.filter((m) => m.kind === 'rapid').length} rapids)`
            : `${hits.length} G0 rapid(s) go below the stock top Z ${p.stock_top}, down to Z ${fmt(lowest!)} (lines ${hits
                .slice(0, 5)
                .map((m) => m.line)
                .join(', ')}): a rapid into material crashes the tool`,
      });
    }
    case 'feeds': {
      if (w.moves.length === 0) return noWork();
      const lo = w.moves.reduce((a, m) => Math.min(a, m.f), Infinity);
      const hi = w.moves.reduce((a, m) => Math.max(a, m.f), -Infinity);
      const out = w.moves.filter((m) => m.f <= 0 || !inRange(m.f, p.range));
      return ok(out.length === 0, {
        measured: { min: lo, max: hi },
        expected: p.range,
        tolerance: 'inclusive range',
        reason: `feeds of the ${w.what} span ${fmt(lo)}–${fmt(hi)} mm/min vs ${rangeText(p.range)}${out.length ? `: ${out.length} move(s) outside (first at line ${out[0]!.line}, F${fmt(out[0]!.f)})` : ''}`,
      });
    }
    case 'tool_changes': {
      const tools = prog.toolChanges.map((t) => t.tool);
      const bad: string[] = [];
      if (p.count !== undefined && tools.length !== p.count) bad.push(`want exactly ${p.count}`);
      if (p.min !== undefined && tools.length < p.min) bad.push(`want at least ${p.min}`);
      if (p.tools !== undefined && tools.join(',') !== p.tools.join(','))
        bad.push(`want tools ${p.tools.map((t) => `T${t}`).join(' → ') || 'none'}`);
      return ok(bad.length === 0, {
        measured: tools,
        expected: {
          ...(p.count !== undefined ? { count: p.count } : {}),
          ...(p.min !== undefined ? { min: p.min } : {}),
          ...(p.tools ? { tools: p.tools } : {}),
        },
        tolerance: 0,
        reason: `${tools.length} tool change(s) (M6)${tools.length ? `: ${tools.map((t) => `T${t}`).join(' → ')}` : ''}${bad.length ? ` → ${bad.join('; ')}` : ''}`,
      });
    }
    case 'extruded_volume': {
      const len = prog.moves.reduce((a, m) => a + m.e, 0);
      const area = Math.PI * (p.filament_diameter / 2) ** 2;
      const vol = len * area;
      const ratio = p.part_volume
        ? ` = ${fmt((100 * vol) / p.part_volume)} % of the part's ${fmt(p.part_volume)} mm³`
        : '';
      const base = `net filament ${fmt(len)} mm × π(${p.filament_diameter}/2)² = ${fmt(vol)} mm³${ratio}`;
      if (len <= 0) return fail(`no filament is extruded (net E ${fmt(len)} mm)`);
      if (p.range !== undefined)
        return ok(inRange(vol, p.range), {
          measured: round(vol),
          expected: p.range,
          tolerance: 'inclusive range',
          reason: `${base} vs ${rangeText(p.range)} mm³ → ${inRange(vol, p.range) ? 'within' : 'OUTSIDE'}`,
        });
      const err = relativeError(vol, p.target!);
      const score = closeness(err, p.closeness);
      return {
        passed: score > 0,
        score,
        measured: round(vol),
        expected: p.target,
        tolerance: { rel_full: p.closeness.full, rel_zero: p.closeness.zero },
        reason: `${base} vs target ${fmt(p.target!)} mm³: ${pct(err)} off → score ${Number(score.toFixed(3))}`,
      };
    }
    case 'header': {
      const h = prog.header;
      const len = prog.moves.reduce((a, m) => a + m.e, 0);
      if (h.filamentMm === undefined || !(h.filamentMm > 0))
        return fail(
          `no usable "filament used" comment from the slicer (${h.slicer ?? 'unknown slicer'}; moves extrude ${fmt(len)} mm)`,
        );
      const err = relativeError(len, h.filamentMm);
      const bad: string[] = [];
      if (err > p.rel_tol) bad.push(`moves extrude ${fmt(len)} mm, ${pct(err)} off the header`);
      if (p.max_time_sec !== undefined && (h.timeSec === undefined || h.timeSec > p.max_time_sec))
        bad.push(
          h.timeSec === undefined
            ? 'no estimated time'
            : `estimated time ${h.timeSec} s > ${p.max_time_sec} s`,
        );
      return ok(bad.length === 0, {
        measured: {
          header_filament_mm: h.filamentMm,
          moves_filament_mm: round(len),
          time_sec: h.timeSec ?? null,
        },
        expected: { filament: 'header = moves', ...(p.max_time_sec ? { max_time_sec: p.max_time_sec } : {}) },
        tolerance: { rel: p.rel_tol },
        reason: `${h.slicer ?? 'slicer'} header says ${fmt(h.filamentMm)} mm of filament${h.timeSec !== undefined ? `, ${h.timeSec} s` : ''}; the moves extrude ${fmt(len)} mm (${pct(err)} apart) → ${bad.length ? bad.join('; ') : 'consistent'}`,
      });
    }
    case 'holes':
      return holes(p, prog);
  }
}

function layerHeight(
  p: Extract<GcodeCheckParams, { check: 'layer_height' }>,
  moves: Move[],
  what: string,
): Verdict {
  const zs = [...new Set(moves.map((m) => Math.round(m.to[2] * 1000) / 1000))].sort((a, b) => a - b);
  if (zs.length < 2) return fail(`only ${zs.length} layer(s) of ${what}: cannot measure a layer height`);
  const h = zs.map((z, i) => (i === 0 ? z : z - zs[i - 1]!));
  const middle = h.slice(1, -1);
  const off = middle.map((x, i) => ({ x, i: i + 1 })).filter((o) => Math.abs(o.x - p.expected) > p.abs_tol);
  const firstOk = p.first_layer === undefined || Math.abs(h[0]! - p.first_layer) <= p.abs_tol;
  const mode = modeOf(h.slice(1));
  const passed = off.length === 0 && firstOk;
  return ok(passed, {
    measured: { layers: zs.length, first_layer: round(h[0]!), typical: round(mode), off_layers: off.length },
    expected: {
      layer_height: p.expected,
      ...(p.first_layer !== undefined ? { first_layer: p.first_layer } : {}),
    },
    tolerance: { abs: p.abs_tol },
    reason:
      `${zs.length} layers of ${what}: first at Z ${fmt(h[0]!)}, typical height ${fmt(mode)} mm vs ${p.expected} ± ${p.abs_tol}` +
      (off.length
        ? `; ${off.length} layer(s) off (e.g. ${fmt(off[0]!.x)} mm at Z ${fmt(zs[off[0]!.i]!)})`
        : '') +
      (firstOk ? '' : `; first layer ${fmt(h[0]!)} mm vs ${p.first_layer}`) +
      ` → ${passed ? 'matches' : 'wrong layer height'}`,
  });
}

function holes(p: Extract<GcodeCheckParams, { check: 'holes' }>, prog: GcodeProgram): Verdict {
  const found: { x: number; y: number; z: number }[] = prog.holes.map((h) => ({ ...h }));
  // plunges: vertical feed moves ending below the stock top, merged by XY
  for (const m of prog.moves)
    if (
      m.kind === 'feed' &&
      m.to[2] < m.from[2] &&
      m.to[2] < p.stock_top &&
      Math.hypot(m.to[0] - m.from[0], m.to[1] - m.from[1]) < 1e-6
    ) {
      const h = found.find((q) => Math.hypot(q.x - m.to[0], q.y - m.to[1]) <= Math.max(p.abs_tol, 1e-3));
      if (h) h.z = Math.min(h.z, m.to[2]);
      else found.push({ x: m.to[0], y: m.to[1], z: m.to[2] });
    }
  const unmatched = [...found];
  const missing: [number, number][] = [];
  const wrongDepth: string[] = [];
  for (const want of p.positions) {
    const k = unmatched.findIndex((h) => Math.hypot(h.x - want[0], h.y - want[1]) <= p.abs_tol);
    if (k < 0) missing.push(want);
    else {
      const h = unmatched.splice(k, 1)[0]!;
      if (p.depth !== undefined && Math.abs(h.z - p.depth) > p.depth_tol)
        wrongDepth.push(`${vec([h.x, h.y])} to Z ${fmt(h.z)}`);
    }
  }
  const passed = missing.length === 0 && unmatched.length === 0 && wrongDepth.length === 0;
  const bad = [
    missing.length ? `missing ${missing.map((m) => vec(m)).join(', ')}` : '',
    unmatched.length ? `extra ${unmatched.map((h) => vec([h.x, h.y])).join(', ')}` : '',
    wrongDepth.length ? `wrong depth (want Z ${p.depth} ± ${p.depth_tol}): ${wrongDepth.join(', ')}` : '',
  ].filter((s) => s !== '');
  return ok(passed, {
    measured: found.map((h) => [round(h.x), round(h.y), round(h.z)]),
    expected: { positions: p.positions, ...(p.depth !== undefined ? { depth: p.depth } : {}) },
    tolerance: { xy: p.abs_tol, depth: p.depth_tol },
    reason: `${found.length} hole(s) drilled vs ${p.positions.length} expected (±${p.abs_tol} in XY) → ${passed ? 'all in place' : bad.join('; ')}`,
  });
}

/** Whether a move's XY segment touches the footprint box (Liang–Barsky clipping). */
function crosses(m: Move, f: { min: [number, number]; max: [number, number] }): boolean {
  let t0 = 0;
  let t1 = 1;
  const d = [m.to[0] - m.from[0], m.to[1] - m.from[1]];
  for (let i = 0; i < 2; i++) {
    const p0 = m.from[i]!;
    if (d[i] === 0) {
      if (p0 < f.min[i]! || p0 > f.max[i]!) return false;
      continue;
    }
    let a = (f.min[i]! - p0) / d[i]!;
    let b = (f.max[i]! - p0) / d[i]!;
    if (a > b) [a, b] = [b, a];
    t0 = Math.max(t0, a);
    t1 = Math.min(t1, b);
    if (t0 > t1) return false;
  }
  return true;
}

function modeOf(xs: number[]): number {
  const c = new Map<number, number>();
  for (const x of xs) c.set(Math.round(x * 1000) / 1000, (c.get(Math.round(x * 1000) / 1000) ?? 0) + 1);
  return [...c.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? NaN;
}

function inRange(v: number, r: { min?: number | undefined; max?: number | undefined }): boolean {
  return (r.min === undefined || v >= r.min) && (r.max === undefined || v <= r.max);
}
function rangeText(r: { min?: number | undefined; max?: number | undefined }): string {
  return r.min === undefined ? `≤ ${r.max}` : r.max === undefined ? `≥ ${r.min}` : `[${r.min}, ${r.max}]`;
}
const round = (x: number): number => Number(x.toPrecision(8));
const fmt = (x: number): string => String(Number(x.toPrecision(6)));
const pct = (x: number): string => `${Number((100 * x).toPrecision(3))} %`;
const vec = (v: readonly number[]): string => `[${v.map(fmt).join(', ')}]`;
const box = (b: { min: readonly number[]; max: readonly number[] }): string => `${vec(b.min)}–${vec(b.max)}`;
