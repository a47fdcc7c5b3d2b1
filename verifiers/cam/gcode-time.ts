/**
 * Print time recomputed from the moves, with the planner PrusaSlicer's time estimator uses
 * (Marlin's: trapezoid speed profiles, classic jerk at the junctions, a backward and a forward pass
 * so every block can stop in time) and the machine's limits. On PrusaSlicer 2.5 output with its
 * default limits it lands within 0.1 % of the slicer's own normal-mode estimate (1857 s vs 1857 s,
 * 3174 s vs 3171 s), so a header that claims a shorter print is caught by the moves.
 *
 * Limits the file sets itself (M201, M203, M204, M205) are obeyed only where they are lower than
 * the machine's: a file can slow the printer down, never claim it faster than it is.
 */
import type { GcodeProgram } from './gcode-parse.js';

/** Kinematic limits of the machine (mm/s, mm/s²), per axis in X, Y, Z, E order. */
export interface Machine {
  /** Acceleration of extruding moves. */
  acceleration: number;
  /** Acceleration of travel moves (no extrusion). */
  travel_acceleration: number;
  /** Acceleration of filament-only moves (retract, unretract). */
  retract_acceleration: number;
  max_feedrate: [number, number, number, number];
  max_acceleration: [number, number, number, number];
  max_jerk: [number, number, number, number];
}

/** PrusaSlicer 2.5's default machine limits (normal mode), as its time estimator uses them. */
export const PRUSA_DEFAULT_MACHINE: Machine = {
  acceleration: 1500,
  travel_acceleration: 1500,
  retract_acceleration: 1500,
  max_feedrate: [500, 500, 12, 120],
  max_acceleration: [9000, 9000, 500, 10000],
  max_jerk: [10, 10, 0.2, 2.5],
};

/** The estimate and what shaped it. */
export interface PrintTime {
  seconds: number;
  /** Seconds of G4 dwells included. */
  dwell: number;
  /** Moves whose F was above an axis's maximum feed, so the machine's limit was used. */
  capped: number;
  /** In-file limits that lowered the machine's (e.g. `M204 print 800 (line 12)`). */
  lowered: string[];
  /** In-file limits above the machine's, ignored (e.g. `M204 print 50000 (line 12)`). */
  ignored: string[];
}

interface Block {
  d: number;
  acc: number;
  cruise: number;
  entry: number;
  maxEntry: number;
  safe: number;
  nominal: boolean;
}

const allowable = (acc: number, v: number, d: number): number => Math.sqrt(Math.max(0, v * v + 2 * acc * d));

/** Estimates how long the program runs on `machine`, from every move (start and end G-code too). */
export function estimatePrintTime(prog: GcodeProgram, machine: Machine): PrintTime {
  const m: Machine = structuredClone(machine);
  const lowered: string[] = [];
  const ignored: string[] = [];
  const blocks: Block[] = [];
  let dwell = 0;
  let capped = 0;
  let prev: { feed: number; axis: number[]; safe: number } | null = null;
  let c = 0;
  const applyUpTo = (moveIndex: number): void => {
    for (; c < prog.commands.length && prog.commands[c]!.atMove <= moveIndex; c++) {
      const cmd = prog.commands[c]!;
      if (cmd.letter === 'G' && cmd.code === 4) dwell += (cmd.words['P'] ?? 0) / 1000 + (cmd.words['S'] ?? 0);
      if (cmd.letter === 'M') lower(m, cmd, lowered, ignored);
    }
  };
  prog.moves.forEach((mv, i) => {
    applyUpTo(i);
    const dp = [mv.to[0] - mv.from[0], mv.to[1] - mv.from[1], mv.to[2] - mv.from[2], mv.e];
    let d = Math.hypot(dp[0]!, dp[1]!, dp[2]!);
    const eOnly = d < 1e-9;
    if (eOnly) d = Math.abs(mv.e);
    if (d < 1e-9) return;
    let feed = mv.f > 0 ? mv.f / 60 : 25; // Marlin starts at 1500 mm/min
    const axis = dp.map((x) => (feed * x) / d);
    let factor = 1;
    axis.forEach((v, k) => v !== 0 && (factor = Math.min(factor, m.max_feedrate[k]! / Math.abs(v))));
    if (factor < 1) capped++;
    feed *= factor;
    for (let k = 0; k < 4; k++) axis[k] = axis[k]! * factor;
    let acc = eOnly ? m.retract_acceleration : mv.e > 0 ? m.acceleration : m.travel_acceleration;
    dp.forEach((x, k) => {
      const share = Math.abs(x) / d;
      if (share > 0 && acc * share > m.max_acceleration[k]!) acc = m.max_acceleration[k]! / share;
    });
    let safe = feed;
    axis.forEach((v, k) => Math.abs(v) > m.max_jerk[k]! && (safe = Math.min(safe, m.max_jerk[k]!)));
    let junction = safe;
    if (prev !== null && prev.feed > 1e-4) junction = junctionSpeed(prev, feed, axis, safe, m.max_jerk);
    const limit = allowable(acc, safe, d);
    blocks.push({
      d,
      acc,
      cruise: feed,
      entry: Math.min(junction, limit),
      maxEntry: junction,
      safe,
      nominal: feed <= limit,
    });
    prev = { feed, axis, safe };
  });
  applyUpTo(Infinity);
  // backward pass: every block must be able to slow down to the next block's entry speed
  for (let k = blocks.length - 2; k >= 0; k--) {
    const b = blocks[k]!;
    const next = blocks[k + 1]!;
    if (b.entry !== b.maxEntry)
      b.entry =
        !b.nominal && b.maxEntry > next.entry
          ? Math.min(b.maxEntry, allowable(b.acc, next.entry, b.d))
          : b.maxEntry;
  }
  // forward pass: and reach its entry speed from the previous one's
  for (let k = 1; k < blocks.length; k++) {
    const p = blocks[k - 1]!;
    const b = blocks[k]!;
    if (!p.nominal && p.entry < b.entry) b.entry = Math.min(b.entry, allowable(p.acc, p.entry, p.d));
  }
  let seconds = dwell;
  blocks.forEach((b, k) => (seconds += trapezoid(b, k + 1 < blocks.length ? blocks[k + 1]!.entry : b.safe)));
  return { seconds, dwell, capped, lowered, ignored };
}

/** Marlin's classic-jerk junction speed between the previous block and this one. */
function junctionSpeed(
  prev: { feed: number; axis: number[]; safe: number },
  feed: number,
  axis: number[],
  safe: number,
  jerk: readonly number[],
): number {
  const larger = prev.feed > feed;
  const smaller = larger ? feed / prev.feed : prev.feed / feed;
  let v = larger ? feed : prev.feed;
  let factor = 1;
  let limited = false;
  for (let k = 0; k < 4; k++) {
    let out = prev.axis[k]! * (larger ? smaller : 1);
    let into = axis[k]!;
    if (limited) [out, into] = [out * factor, into * factor];
    const j =
      out > into
        ? into > 0 || out < 0
          ? out - into
          : Math.max(out, -into)
        : into < 0 || out > 0
          ? into - out
          : Math.max(-out, into);
    if (j > jerk[k]!) {
      factor *= jerk[k]! / j;
      limited = true;
    }
  }
  if (limited) v *= factor;
  // not coasting: the machine stops and starts anyway, so the block may start at its safe speed
  if (prev.safe > v * 0.99 && safe > v * 0.99) v = safe;
  return v;
}

/** Time of one block: accelerate from entry, cruise, decelerate to exit (a triangle if short). */
function trapezoid(b: Block, exitSpeed: number): number {
  const a = b.acc;
  const v0 = Math.min(b.entry, b.cruise);
  const v1 = Math.min(exitSpeed, b.cruise);
  let up = Math.max(0, (b.cruise ** 2 - v0 ** 2) / (2 * a));
  let down = Math.max(0, (b.cruise ** 2 - v1 ** 2) / (2 * a));
  let top = b.cruise;
  if (up + down > b.d) {
    up = Math.min(b.d, Math.max(0, (2 * a * b.d - v0 * v0 + v1 * v1) / (4 * a)));
    down = b.d - up;
    top = Math.sqrt(v0 * v0 + 2 * a * up);
  }
  return (top - v0) / a + (top - v1) / a + (b.d - up - down) / top;
}

/** Applies an in-file limit (M201/M203/M204/M205) where it is below the machine's. */
function lower(
  m: Machine,
  cmd: GcodeProgram['commands'][number],
  lowered: string[],
  ignored: string[],
): void {
  const w = cmd.words;
  const up: string[] = [];
  const down: string[] = [];
  const set = (word: string, get: () => number, put: (v: number) => void): void => {
    const v = w[word];
    if (v === undefined || !(v > 0)) return;
    if (v > get()) up.push(`${word}${v} (machine ${get()})`);
    else {
      if (v < get()) down.push(`${word}${v}`);
      put(v);
    }
  };
  const perAxis = (key: 'max_feedrate' | 'max_acceleration' | 'max_jerk'): void =>
    (['X', 'Y', 'Z', 'E'] as const).forEach((a, k) =>
      set(
        a,
        () => m[key][k]!,
        (v) => (m[key][k] = v),
      ),
    );
  if (cmd.code === 201) perAxis('max_acceleration');
  else if (cmd.code === 203) perAxis('max_feedrate');
  else if (cmd.code === 205) perAxis('max_jerk');
  else if (cmd.code === 204) {
    // Marlin: P print, R retract, T travel; S (legacy) print and travel
    const print = w['P'] !== undefined ? 'P' : 'S';
    set(
      print,
      () => m.acceleration,
      (v) => (m.acceleration = v),
    );
    if (w['T'] !== undefined)
      set(
        'T',
        () => m.travel_acceleration,
        (v) => (m.travel_acceleration = v),
      );
    else if (print === 'S')
      set(
        'S',
        () => m.travel_acceleration,
        (v) => (m.travel_acceleration = v),
      );
    set(
      'R',
      () => m.retract_acceleration,
      (v) => (m.retract_acceleration = v),
    );
  } else return;
  const at = `M${cmd.code} `;
  if (up.length > 0 && ignored.length < 6)
    ignored.push(`${at}${[...new Set(up)].join(' ')} (line ${cmd.line})`);
  if (down.length > 0 && lowered.length < 6)
    lowered.push(`${at}${[...new Set(down)].join(' ')} (line ${cmd.line})`);
}
