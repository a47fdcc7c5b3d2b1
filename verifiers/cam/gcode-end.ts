/**
 * The end sequence of a program: the commands that must follow its last working move (hotend and
 * bed off, motors off on a printer; program end on a mill). A pattern is one command, `M104 S0`,
 * or alternatives, `M84|M18`; a command matches when it has the code and every word given.
 */
import type { Command, GcodeProgram } from './gcode-parse.js';

interface Alternative {
  letter: 'G' | 'M';
  code: number;
  /** Word → required value, or null when the letter only has to be there (`M84 X`). */
  words: Record<string, number | null>;
}

/** A parsed end-sequence pattern. */
export interface CommandPattern {
  text: string;
  alternatives: Alternative[];
}

/** Parses `M104 S0|M109 S0`; null when it is not one. */
export function commandPattern(text: string): CommandPattern | null {
  const alternatives: Alternative[] = [];
  for (const alt of text.split('|')) {
    const [head, ...rest] = alt.trim().toUpperCase().split(/\s+/);
    const m = /^([GM])(\d+)$/.exec(head ?? '');
    if (!m) return null;
    const words: Record<string, number | null> = {};
    for (const w of rest) {
      const wm = /^([A-Z])([-+]?\d*\.?\d*)$/.exec(w);
      if (!wm) return null;
      words[wm[1]!] = wm[2] === '' ? null : Number(wm[2]);
    }
    alternatives.push({ letter: m[1] as 'G' | 'M', code: Number(m[2]), words });
  }
  return { text: text.trim(), alternatives };
}

const NAMES: Record<string, string> = {
  M104: 'hotend off',
  M109: 'hotend off',
  M140: 'bed off',
  M190: 'bed off',
  M84: 'motors off',
  M18: 'motors off',
  M2: 'program end',
  M30: 'program end',
  M5: 'spindle stop',
};

/** `M84|M18 (motors off)`. */
export function describePattern(p: CommandPattern): string {
  const a = p.alternatives[0]!;
  const name = NAMES[`${a.letter}${a.code}`];
  return name === undefined ? p.text : `${p.text} (${name})`;
}

/** The default end sequence of an FDM or a CNC program. */
export function defaultEndSequence(mode: 'fdm' | 'cnc', prog: GcodeProgram): string[] {
  if (mode === 'cnc') return ['M2|M30'];
  const bedHeated = prog.commands.some(
    (c) =>
      c.letter === 'M' &&
      (c.code === 140 || c.code === 190) &&
      ((c.words['S'] ?? 0) > 0 || (c.words['R'] ?? 0) > 0),
  );
  return ['M104 S0|M109 S0', ...(bedHeated ? ['M140 S0|M190 S0'] : []), 'M84|M18'];
}

function matches(c: Command, a: Alternative): boolean {
  if (c.letter !== a.letter || c.code !== a.code) return false;
  return Object.entries(a.words).every(([k, v]) =>
    v === null ? c.flags.includes(k) || c.words[k] !== undefined : c.words[k] === v,
  );
}

/** Which patterns a command after move index `afterMove` matches, and which none does. */
export function findEndSequence(
  patterns: readonly CommandPattern[],
  prog: GcodeProgram,
  afterMove: number,
): { found: { pattern: string; line: number }[]; missing: CommandPattern[] } {
  const tail = prog.commands.filter((c) => c.atMove > afterMove);
  const found: { pattern: string; line: number }[] = [];
  const missing: CommandPattern[] = [];
  for (const p of patterns) {
    const hit = tail.find((c) => p.alternatives.some((a) => matches(c, a)));
    if (hit) found.push({ pattern: p.text, line: hit.line });
    else missing.push(p);
  }
  return { found, missing };
}
