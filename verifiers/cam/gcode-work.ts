/**
 * The moves a check looks at. FDM: moves that advance filament across XY (travels are G1 too),
 * after the start G-code and without skirt and brim; CNC: feed and drill moves. Optionally only
 * those of one tool.
 *
 * The slicer's comments that mark start G-code (`;LAYER_CHANGE`, `;LAYER:0`) and features
 * (`;TYPE:Skirt`) are written by whoever wrote the file, so they are believed only where they are
 * plausible: a start sequence extrudes at most 10 % of the filament, and skirt and brim lie on the
 * lowest 3 layers. Beyond that the moves count, and the verdict says why.
 */
import { fmt, pct } from '../judge-value.js';
import type { GcodeProgram, Move } from './gcode-parse.js';

/** Most of the filament a believable start sequence (purge lines) extrudes. */
const START_SHARE = 0.1;
/** Layers from the bottom on which a skirt or brim label is believed. */
const LABEL_LAYERS = 3;

/** What `workingMoves` reads of the params. */
export interface MoveSelection {
  mode?: 'fdm' | 'cnc' | undefined;
  exclude_types?: string[] | undefined;
  layers_only?: boolean | undefined;
  tool?: number | string | undefined;
}

/** The working moves of a check. */
export interface Work {
  mode: 'fdm' | 'cnc';
  moves: Move[];
  /** Every move of the tool (all moves without `tool`), working or not. */
  pool: Move[];
  /** Readable name of the moves, e.g. `extruding moves (without start G-code, skirt, brim)`. */
  what: string;
  /** Why a comment was not believed, when one was not. */
  notes: string[];
  tool: number | undefined;
}

/** `T1` or `1` → 1. */
export function toolNumber(t: number | string | undefined): number | undefined {
  return t === undefined ? undefined : typeof t === 'number' ? t : Number(t.slice(1));
}

/** A move that extrudes while moving in XY. */
const isExtruding = (m: Move): boolean => m.e > 1e-9 && (m.from[0] !== m.to[0] || m.from[1] !== m.to[1]);

/** The mode: the params', else `fdm` when any move extrudes. */
export function modeOf(p: { mode?: 'fdm' | 'cnc' | undefined }, prog: GcodeProgram): 'fdm' | 'cnc' {
  return p.mode ?? (prog.moves.some((m) => m.e !== 0) ? 'fdm' : 'cnc');
}

/** Selects the working moves of `prog` for a check. */
export function workingMoves(p: MoveSelection, prog: GcodeProgram): Work {
  const mode = modeOf(p, prog);
  const tool = toolNumber(p.tool);
  const pool = tool === undefined ? prog.moves : prog.moves.filter((m) => m.tool === tool);
  const of = tool === undefined ? '' : ` of tool T${tool}`;
  if (mode === 'cnc')
    return {
      mode,
      tool,
      pool,
      notes: [],
      moves: pool.filter((m) => m.kind !== 'rapid'),
      what: `cutting moves${of} (G1/G2/G3, drilling)`,
    };
  const notes: string[] = [];
  const left: string[] = [];
  let moves = pool.filter(isExtruding);
  if ((p.layers_only ?? true) && prog.layerMarkers.length > 0) {
    const total = moves.reduce((a, m) => a + m.e, 0);
    const start = moves.filter((m) => m.layer === 0);
    const startE = start.reduce((a, m) => a + m.e, 0);
    if (startE <= START_SHARE * total) {
      moves = moves.filter((m) => m.layer > 0);
      left.push('start G-code');
    } else
      notes.push(
        `the moves before the first layer marker (line ${prog.layerMarkers[0]!.line}) extrude ${pct(startE / total)} of the filament, more than a start sequence's ${pct(START_SHARE)}: the marker is not believed and they are counted`,
      );
  }
  const types = (p.exclude_types ?? []).map((t) => t.toLowerCase());
  if (types.length > 0) {
    const labelled = (m: Move): boolean => types.some((t) => m.type.includes(t));
    const zs = [...new Set(moves.map((m) => zKey(m.to[2])))].sort((a, b) => a - b);
    const cutoff = zs[Math.min(LABEL_LAYERS, zs.length) - 1] ?? Infinity;
    const high = moves.filter((m) => labelled(m) && zKey(m.to[2]) > cutoff);
    moves = moves.filter((m) => !labelled(m) || zKey(m.to[2]) > cutoff);
    left.push(...types);
    if (high.length > 0) {
      const names = [...new Set(high.map((m) => m.type))].slice(0, 3).join(', ');
      notes.push(
        `${high.length} moves labelled ;TYPE:${names} lie above the lowest ${LABEL_LAYERS} layers (Z ${cutoff}), where no skirt or brim is printed: the label is not believed and they are counted`,
      );
    }
  }
  return {
    mode,
    tool,
    pool,
    notes,
    moves,
    what: `extruding moves${of}${left.length ? ` (without ${left.join(', ')})` : ''}`,
  };
}

/** Z rounded to 1 µm, to tell layers apart. */
export const zKey = (z: number): number => Math.round(z * 1000) / 1000;

/** The filament a program pushes through the nozzle, and the moves no nozzle could lay down. */
export interface Filament {
  /** mm of filament fed and not taken back: E advances, less the re-priming of earlier retractions. */
  used: number;
  /** The plain sum of E (retractions negative), for reasons. */
  net: number;
  /** Moves after the start G-code that push much more filament than their length can take. */
  blobs: { line: number; e: number; length: number }[];
}

/** Filament per mm of travel above which a move is a blob (a 0.4 mm bead takes ≈ 0.033). */
const BLOB_E_PER_MM = 1;
/** Filament pushed at a standstill (beyond re-priming) above which a move is a blob, mm. */
const BLOB_STANDSTILL = 5;

/**
 * Counts filament the way a slicer does: a retraction pulls filament back and the next advance
 * re-primes it, so neither counts; only filament fed beyond that is used. A huge final retraction
 * therefore cannot make a print look cheaper, and a move that jumps E (moves cut out of an
 * absolute-E file) shows up as a blob.
 */
export function filamentUsed(moves: readonly Move[], layered: boolean): Filament {
  const retracted = new Map<number, number>();
  let used = 0;
  let net = 0;
  const blobs: Filament['blobs'] = [];
  for (const m of moves) {
    net += m.e;
    const r = retracted.get(m.tool) ?? 0;
    if (m.e < 0) retracted.set(m.tool, r - m.e);
    else if (m.e > 0) {
      const prime = Math.min(m.e, r);
      retracted.set(m.tool, r - prime);
      const fed = m.e - prime;
      used += fed;
      const length = Math.hypot(m.to[0] - m.from[0], m.to[1] - m.from[1], m.to[2] - m.from[2]);
      if (
        (!layered || m.layer > 0) &&
        ((fed > BLOB_E_PER_MM * length && fed > 1) || (length === 0 && fed > BLOB_STANDSTILL))
      )
        if (blobs.length < 5) blobs.push({ line: m.line, e: fed, length });
    }
  }
  return { used, net, blobs };
}

/** Distinct Z levels of the moves, ascending. */
export function layersOf(moves: readonly Move[]): number[] {
  return [...new Set(moves.map((m) => zKey(m.to[2])))].sort((a, b) => a - b);
}

/** Tools that made any move, for reasons (`T0, T1`). */
export function toolsUsed(prog: GcodeProgram): string {
  const ts = [...new Set(prog.moves.map((m) => m.tool))].sort((a, b) => a - b);
  return ts.map((t) => (t < 0 ? 'none loaded' : `T${t}`)).join(', ');
}

/** `2 moves push far more filament than their length takes (line 9: 60.2 mm over 3.1 mm)`. */
export function blobText(f: Filament): string {
  const b = f.blobs[0]!;
  return `${f.blobs.length}${f.blobs.length === 5 ? '+' : ''} move(s) push far more filament than they can lay down (line ${b.line}: ${fmt(b.e)} mm of filament over ${fmt(b.length)} mm), as when moves are cut out of an absolute-E file`;
}
