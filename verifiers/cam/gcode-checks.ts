/**
 * The geometric and CNC checks of `gcode.check` (envelope, min_z, layer_height, rapids, feeds,
 * tool_changes, holes), as pure functions of the params and the interpreted program. Every verdict
 * reports what it measured; a comment that was not believed is said in the reason.
 */
import { fmt, judgeValue, rangeText, round, vec } from '../judge-value.js';
import type { Verdict } from '../types.js';
import type { CheckParams } from './gcode-params.js';
import type { GcodeProgram, Move } from './gcode-parse.js';
import { modeOf, toolsUsed, workingMoves, zKey, type Work } from './gcode-work.js';

type Box = { min: [number, number, number]; max: [number, number, number] };
const AXES = ['X', 'Y', 'Z'] as const;

/** A verdict from a pass/fail and its fields. */
export const verdict = (passed: boolean, v: Omit<Verdict, 'passed' | 'score'>): Verdict => ({
  passed,
  score: passed ? 1 : 0,
  ...v,
});

/** The reason with the notes on comments that were not believed. */
export const withNotes = (reason: string, w: Pick<Work, 'notes'>): string =>
  w.notes.length === 0 ? reason : `${reason}; ${w.notes.join('; ')}`;

/** The failing verdict of a check that finds no working moves. */
function noWork(w: Work, prog: GcodeProgram): Verdict {
  const tools = w.tool === undefined ? '' : `; tools used: ${toolsUsed(prog)}`;
  return {
    passed: false,
    score: 0,
    measured: { working_moves: 0, moves: prog.moves.length, lines: prog.lines },
    reason: withNotes(`no ${w.what} in ${prog.lines} lines (${prog.moves.length} moves${tools})`, w),
  };
}

/** Bounds of the moves' end points. */
export function bounds(moves: readonly Move[]): Box {
  const b: Box = { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
  for (const m of moves)
    for (const q of [m.from, m.to])
      for (let i = 0; i < 3; i++) {
        b.min[i] = Math.min(b.min[i]!, q[i]!);
        b.max[i] = Math.max(b.max[i]!, q[i]!);
      }
  return b;
}
const boxText = (b: { min: readonly number[]; max: readonly number[] }): string =>
  `${vec(b.min)}–${vec(b.max)}`;

/** `envelope`: bounds, containment, size and XY centre, each with a tolerance per axis. */
export function envelope(p: CheckParams<'envelope'>, prog: GcodeProgram): Verdict {
  const w = workingMoves(p, prog);
  if (w.moves.length === 0) return noWork(w, prog);
  const b = bounds(w.moves);
  const size = b.max.map((v, i) => v - b.min[i]!);
  const centre = [(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2];
  const t = typeof p.abs_tol === 'number' ? [p.abs_tol, p.abs_tol, p.abs_tol] : p.abs_tol;
  const pm = (i: number): string => `± ${t[i]}`;
  const bad: string[] = [];
  if (p.expected)
    for (const k of ['min', 'max'] as const)
      AXES.forEach((a, i) => {
        const got = b[k][i]!;
        const want = p.expected![k][i]!;
        if (Math.abs(got - want) > t[i]!)
          bad.push(`${k} ${a} ${fmt(got)} vs ${fmt(want)} ${pm(i)} (off by ${fmt(got - want)})`);
      });
  if (p.within)
    AXES.forEach((a, i) => {
      const below = p.within!.min[i]! - b.min[i]!;
      const above = b.max[i]! - p.within!.max[i]!;
      if (below > t[i]!)
        bad.push(`min ${a} ${fmt(b.min[i]!)} is ${fmt(below)} below the box's ${fmt(p.within!.min[i]!)}`);
      if (above > t[i]!)
        bad.push(`max ${a} ${fmt(b.max[i]!)} is ${fmt(above)} above the box's ${fmt(p.within!.max[i]!)}`);
    });
  if (p.size)
    AXES.forEach((a, i) => {
      if (Math.abs(size[i]! - p.size![i]!) > t[i]!)
        bad.push(`size ${a} ${fmt(size[i]!)} vs ${fmt(p.size![i]!)} ${pm(i)}`);
    });
  if (p.center)
    (['X', 'Y'] as const).forEach((a, i) => {
      if (Math.abs(centre[i]! - p.center![i]!) > t[i]!)
        bad.push(`centre ${a} ${fmt(centre[i]!)} vs ${fmt(p.center![i]!)} ${pm(i)}`);
    });
  return verdict(bad.length === 0, {
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
    tolerance: { abs: p.abs_tol },
    reason: withNotes(
      `${w.moves.length} ${w.what} span ${boxText(b)} (size ${vec(size)}, XY centre ${vec(centre)}) → ${bad.length === 0 ? `matches (±${vec(t)} in X, Y, Z)` : bad.join('; ')}`,
      w,
    ),
  });
}

/** `min_z`: the lowest Z of the working moves. */
export function minZ(p: CheckParams<'min_z'>, prog: GcodeProgram): Verdict {
  const w = workingMoves(p, prog);
  if (w.moves.length === 0) return noWork(w, prog);
  const z = w.moves.reduce((a, m) => Math.min(a, m.from[2], m.to[2]), Infinity);
  const line = w.moves.find((m) => Math.min(m.from[2], m.to[2]) === z)!.line;
  const gate =
    p.expected !== undefined
      ? { min: round(p.expected - p.abs_tol!), max: round(p.expected + p.abs_tol!) }
      : p.range;
  const v = judgeValue(`lowest Z of the ${w.what}`, z, { ...p, range: gate }, `line ${line}`);
  return {
    ...v,
    ...(p.expected !== undefined ? { expected: p.expected, tolerance: { abs: p.abs_tol } } : {}),
    reason: withNotes(v.reason, w),
  };
}

/** `layer_height`: every layer but the first and the last, and the first when asked. */
export function layerHeight(p: CheckParams<'layer_height'>, prog: GcodeProgram): Verdict {
  const w = workingMoves(p, prog);
  const zs = [...new Set(w.moves.map((m) => zKey(m.to[2])))].sort((a, b) => a - b);
  if (zs.length < 2)
    return {
      passed: false,
      score: 0,
      measured: { layers: zs.length },
      reason: withNotes(`only ${zs.length} layer(s) of ${w.what}: cannot measure a layer height`, w),
    };
  const h = zs.map((z, i) => (i === 0 ? z : z - zs[i - 1]!));
  const off = h
    .slice(1, -1)
    .map((x, i) => ({ x, i: i + 1 }))
    .filter((o) => Math.abs(o.x - p.expected) > p.abs_tol);
  const firstOk = p.first_layer === undefined || Math.abs(h[0]! - p.first_layer) <= p.abs_tol;
  const mode = typical(h.slice(1));
  const passed = off.length === 0 && firstOk;
  return verdict(passed, {
    measured: { layers: zs.length, first_layer: round(h[0]!), typical: round(mode), off_layers: off.length },
    expected: {
      layer_height: p.expected,
      ...(p.first_layer !== undefined ? { first_layer: p.first_layer } : {}),
    },
    tolerance: { abs: p.abs_tol },
    reason: withNotes(
      `${zs.length} layers of ${w.what}: first at Z ${fmt(h[0]!)}, typical height ${fmt(mode)} mm vs ${p.expected} ± ${p.abs_tol}` +
        (off.length
          ? `; ${off.length} layer(s) off (e.g. ${fmt(off[0]!.x)} mm at Z ${fmt(zs[off[0]!.i]!)})`
          : '') +
        (firstOk ? '' : `; first layer ${fmt(h[0]!)} mm vs ${p.first_layer}`) +
        ` → ${passed ? 'matches' : 'wrong layer height'}`,
      w,
    ),
  });
}

/** `rapids`: no G0 below the stock top (over the footprint), retracts straight up excepted. */
export function rapids(p: CheckParams<'rapids'>, prog: GcodeProgram): Verdict {
  const w = workingMoves(p, prog);
  // a rapid straight up out of the cut (same XY, ending above the top) is a retract, not a crash
  const retract = (m: Move): boolean =>
    m.from[0] === m.to[0] && m.from[1] === m.to[1] && m.to[2] >= p.stock_top - 1e-6;
  const all = w.pool.filter((m) => m.kind === 'rapid');
  const hits = all.filter(
    (m) =>
      Math.min(m.from[2], m.to[2]) < p.stock_top - 1e-6 &&
      !retract(m) &&
      (p.footprint === undefined || crosses(m, p.footprint)),
  );
  const lowest = hits.reduce((a, m) => Math.min(a, m.from[2], m.to[2]), Infinity);
  const lines = hits.slice(0, 5).map((m) => m.line);
  const over = p.footprint ? ' over the stock' : '';
  const tool = w.tool === undefined ? '' : ` of tool T${w.tool}`;
  return verdict(hits.length === 0, {
    measured: {
      rapids: all.length,
      rapids_below_top: hits.length,
      lowest_z: hits.length ? round(lowest) : null,
      lines,
    },
    expected: { rapids_below_top: 0, stock_top: p.stock_top },
    tolerance: 0,
    reason:
      hits.length === 0
        ? `no G0 rapid${tool} goes below the stock top Z ${p.stock_top}${over} (${all.length} rapids)`
        : `${hits.length} G0 rapid(s)${tool} go below the stock top Z ${p.stock_top}${over}, down to Z ${fmt(lowest)} (lines ${lines.join(', ')}): a rapid into material crashes the tool`,
  });
}

/** `feeds`: every working move's feed in the range. */
export function feeds(p: CheckParams<'feeds'>, prog: GcodeProgram): Verdict {
  const w = workingMoves(p, prog);
  if (w.moves.length === 0) return noWork(w, prog);
  const lo = w.moves.reduce((a, m) => Math.min(a, m.f), Infinity);
  const hi = w.moves.reduce((a, m) => Math.max(a, m.f), -Infinity);
  const r = p.range;
  const inside = (f: number): boolean =>
    f > 0 && (r.min === undefined || f >= r.min) && (r.max === undefined || f <= r.max);
  const out = w.moves.filter((m) => !inside(m.f));
  const claim =
    w.mode === 'cnc'
      ? prog.claims.feeds.find((c) => !w.moves.some((m) => Math.abs(m.f - c.f) < 1e-6))
      : undefined;
  const said = claim
    ? `; a comment (line ${claim.line}: "${claim.text}") claims F${fmt(claim.f)}, which no ${w.what.split(' (')[0]!.replace('moves', 'move')} uses: comments are not evidence`
    : '';
  return verdict(out.length === 0, {
    measured: { min: lo, max: hi, outside: out.length },
    expected: r,
    tolerance: 'inclusive range',
    reason: withNotes(
      `feeds of the ${w.what} span ${fmt(lo)}–${fmt(hi)} mm/min vs ${rangeText(r)}${out.length ? `: ${out.length} move(s) outside (first at line ${out[0]!.line}, F${fmt(out[0]!.f)})` : ''}${said}`,
      w,
    ),
  });
}

/** `tool_changes`: the tools loaded, in order. */
export function toolChanges(p: CheckParams<'tool_changes'>, prog: GcodeProgram): Verdict {
  const tools = prog.toolChanges.map((t) => t.tool);
  const bad: string[] = [];
  if (p.count !== undefined && tools.length !== p.count) bad.push(`want exactly ${p.count}`);
  if (p.min !== undefined && tools.length < p.min) bad.push(`want at least ${p.min}`);
  if (p.tools !== undefined && tools.join(',') !== p.tools.join(','))
    bad.push(`want tools ${p.tools.map((t) => `T${t}`).join(' → ') || 'none'}`);
  const claim =
    modeOf(p, prog) === 'cnc' ? prog.claims.tools.find((c) => !tools.includes(c.tool)) : undefined;
  const said = claim
    ? `; a comment (line ${claim.line}: "${claim.text}") claims T${claim.tool}, which the program never loads: comments are not evidence`
    : '';
  const how =
    prog.toolChanges.length > 0 && prog.commands.some((c) => c.letter === 'M' && c.code === 6) ? 'M6' : 'Tn';
  return verdict(bad.length === 0, {
    measured: tools,
    expected: {
      ...(p.count !== undefined ? { count: p.count } : {}),
      ...(p.min !== undefined ? { min: p.min } : {}),
      ...(p.tools ? { tools: p.tools } : {}),
    },
    tolerance: 0,
    reason: `${tools.length} tool change(s) (${how})${
      tools.length
        ? `: ${prog.toolChanges
            .slice(0, 8)
            .map((t) => `T${t.tool} (line ${t.line})`)
            .join(' → ')}${tools.length > 8 ? ' → …' : ''}`
        : ''
    }${bad.length ? ` → ${bad.join('; ')}` : ''}${said}`,
  });
}

/** `holes`: drilled positions (canned cycles and vertical plunges) and their depth. */
export function holes(p: CheckParams<'holes'>, prog: GcodeProgram): Verdict {
  const w = workingMoves(p, prog);
  const found: { x: number; y: number; z: number }[] = prog.holes
    .filter((h) => w.tool === undefined || h.tool === w.tool)
    .map((h) => ({ x: h.x, y: h.y, z: h.z }));
  // plunges: vertical feed moves ending below the stock top, merged by XY
  for (const m of w.pool)
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
  const tool = w.tool === undefined ? '' : ` with tool T${w.tool}`;
  return verdict(passed, {
    measured: found.map((h) => [round(h.x), round(h.y), round(h.z)]),
    expected: { positions: p.positions, ...(p.depth !== undefined ? { depth: p.depth } : {}) },
    tolerance: { xy: p.abs_tol, depth: p.depth_tol },
    reason: `${found.length} hole(s) drilled${tool} vs ${p.positions.length} expected (±${p.abs_tol} in XY) → ${passed ? 'all in place' : bad.join('; ')}`,
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

/** The most frequent value (to 1 µm). */
export function typical(xs: readonly number[]): number {
  const c = new Map<number, number>();
  for (const x of xs) c.set(zKey(x), (c.get(zKey(x)) ?? 0) + 1);
  return [...c.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? NaN;
}
