/**
 * SPICE netlist text handling for the `spice.measure` verifier: refuse what could supply or steer
 * the number (commands hidden in `*#` comments, `.csparam` vectors, included files, a node named
 * like the measurement, and — when the task lists the allowed element kinds — any other element,
 * `.func` and behavioural R/L/C values), strip what the task replaces (the agent's title, control
 * block, analyses, measurements and outputs), append the task's own `.control` block, and read the
 * result back after a marker sealed with the verification's nonce.
 */

/**
 * Dot commands removed from the agent's netlist: analyses, outputs and measurements (the task's
 * control block runs its own), and `.save` (it can hide the vectors the task measures).
 */
const STRIPPED = new Set(
  '.meas .measure .print .plot .probe .four .save .op .ac .dc .tran .noise .tf .sens .pz .disto .pss .sp'.split(
    ' ',
  ),
);

/** What each element letter is, for reasons. */
export const ELEMENT_KINDS: Record<string, string> = {
  R: 'resistor',
  C: 'capacitor',
  L: 'inductor',
  K: 'inductor coupling',
  V: 'independent voltage source',
  I: 'independent current source',
  E: 'voltage-controlled voltage source',
  F: 'current-controlled current source',
  G: 'voltage-controlled current source',
  H: 'current-controlled voltage source',
  B: 'behavioural source',
  D: 'diode',
  Q: 'bipolar transistor',
  J: 'JFET',
  M: 'MOSFET',
  Z: 'MESFET',
  X: 'subcircuit instance',
  S: 'voltage-controlled switch',
  W: 'current-controlled switch',
  T: 'transmission line',
  O: 'lossy transmission line',
  U: 'RC line',
  Y: 'transmission line',
  P: 'coupled transmission line',
  A: 'XSPICE code model',
  N: 'OSDI device',
};

/** Why a netlist is refused. */
export interface NetlistRefusal {
  line: number;
  /** The element or command, e.g. `E1` or `.csparam`. */
  attempt: string;
  reason: string;
}

interface Line {
  n: number;
  text: string;
  word: string;
}

/** The agent's lines after the title, up to `.end`, `+` continuations joined onto their line. */
function logicalLines(lines: string[]): Line[] {
  const out: Line[] = [];
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i]!;
    const word = (text.trim().split(/\s+/)[0] ?? '').toLowerCase();
    if (word === '.end') break;
    if (word.startsWith('+') && out.length > 0) out.at(-1)!.text += ` ${text.trim().slice(1)}`;
    else out.push({ n: i + 1, text, word });
  }
  return out;
}

const splitLines = (s: string): string[] => s.replace(/\r\n?/g, '\n').split('\n');

/**
 * The first line of `netlist` that could supply or steer the measurement, or that uses an element
 * kind outside `allowed` (element letters such as `['R', 'C', 'L', 'V']`; `X` instances are allowed
 * when they call a subcircuit defined in the netlist, whose body is held to the same rule).
 *
 * @example checkNetlist('* t\nV1 in 0 AC 1\nE1 out 0 in 0 1\n.end\n', { measure: 'f3db', allowed: ['R', 'C', 'V'] })
 * // { line: 3, attempt: 'E1', reason: 'line 3: E1 is a voltage-controlled voltage source (E), not an allowed element (R, C, V)' }
 */
export function checkNetlist(
  netlist: string,
  opts: { measure: string; allowed?: readonly string[] | undefined },
): NetlistRefusal | null {
  const lines = logicalLines(splitLines(netlist));
  const allowed = opts.allowed?.map((k) => k.toUpperCase());
  const subckts = new Set(
    lines.filter((l) => l.word === '.subckt').map((l) => (l.text.trim().split(/\s+/)[1] ?? '').toLowerCase()),
  );
  let inControl = false;
  for (const l of lines) {
    const no = (attempt: string, why: string): NetlistRefusal => ({
      line: l.n,
      attempt,
      reason: `line ${l.n}: ${why}`,
    });
    if (inControl) {
      inControl = l.word !== '.endc';
      continue;
    }
    if (l.word === '.control') {
      inControl = true;
      continue;
    }
    if (l.word.startsWith('*#'))
      return no(
        '*#',
        `"${l.text.trim()}" is an ngspice control command hidden in a comment (*#): a netlist may not run commands, the task's control block measures`,
      );
    if (l.word === '' || l.word.startsWith('*') || l.word.startsWith(';')) continue;
    if (l.word === '.csparam')
      return no(
        '.csparam',
        `.csparam makes control-language vectors, which could stand in for the measurement: not allowed in a delivered netlist`,
      );
    if (['.include', '.inc', '.lib'].includes(l.word))
      return no(
        l.word,
        `${l.word} reads another file: the netlist must be self-contained (only it is re-simulated)`,
      );
    if (l.word.startsWith('.')) {
      if (l.word === '.func' && allowed !== undefined)
        return no(
          '.func',
          `.func defines a behavioural function: the task allows only elements ${allowed.join(', ')}`,
        );
      continue;
    }
    const tokens = l.text.trim().split(/\s+/);
    const name = tokens[0]!;
    if (tokens.slice(1).some((t) => t.toLowerCase() === opts.measure.toLowerCase()))
      return no(
        name,
        `${name} uses a node named ${opts.measure}, the name of the measurement (its vector would be read in its place)`,
      );
    if (allowed === undefined) continue;
    const kind = name[0]!.toUpperCase();
    const what = ELEMENT_KINDS[kind] ?? 'unknown element';
    if (kind === 'X') {
      const sub =
        [...tokens]
          .reverse()
          .find((t) => !t.includes('='))
          ?.toLowerCase() ?? '';
      if (allowed.includes('X') || subckts.has(sub)) continue;
      return no(name, `${name} calls subcircuit ${sub}, which the netlist does not define`);
    }
    if (!allowed.includes(kind))
      return no(name, `${name} is a ${what} (${kind}), not an allowed element (${allowed.join(', ')})`);
    if ('RCL'.includes(kind) && /\b[vi]\s*\(|\bhertz\b|\btime\b/i.test(tokens.slice(3).join(' ')))
      return no(
        name,
        `${name} is a behavioural ${what}: its value depends on ${/hertz/i.test(l.text) ? 'frequency' : /time/i.test(l.text) ? 'time' : 'node voltages or currents'}`,
      );
  }
  return null;
}

/** The netlist to simulate, and what of the agent's netlist was left out. */
export interface PreparedNetlist {
  text: string;
  /** What was stripped, e.g. `.control block (lines 5–8)`, `.meas (line 4)`. */
  ignored: string[];
}

/**
 * The netlist to simulate: a title of the verifier's, the agent's circuit without any `.control`
 * block and without the dot commands listed above (and their `+` continuation lines), cut at the
 * first `.end`; then the task's control block, the sealed results marker, `print <measure>`, `.end`.
 * The agent's title line is replaced (ngspice reads a first line `*ng_script` as a script).
 *
 * @param control lines to run inside `.control … .endc`, e.g. `ac dec 50 1 1meg\nmeas ac f3db …`
 */
export function prepareNetlist(
  agentNetlist: string,
  opts: { control: string; measure: string; marker: string },
): PreparedNetlist {
  const lines = splitLines(agentNetlist);
  const out: string[] = ['* netlist re-simulated by engiloop spice.measure'];
  const ignored: string[] = [];
  if (opts.measure !== '' && (lines[0] ?? '').toLowerCase().includes(opts.measure.toLowerCase()))
    ignored.push(`the title line naming ${opts.measure} ("${lines[0]!.trim().slice(0, 60)}")`);
  let control: number | undefined;
  let dropping = false;
  let end: number | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const word = (line.trim().split(/\s+/)[0] ?? '').toLowerCase();
    if (control !== undefined) {
      if (word === '.endc') {
        ignored.push(`.control block (lines ${control}–${i + 1})`);
        control = undefined;
      }
      continue;
    }
    if (word === '.control') {
      control = i + 1;
      continue;
    }
    if (word === '.end') {
      end = i;
      break;
    }
    if (word.startsWith('+') && dropping) continue;
    dropping = STRIPPED.has(word);
    if (dropping) ignored.push(`${word} (line ${i + 1})`);
    else out.push(line);
  }
  if (control !== undefined) ignored.push(`.control block without .endc (lines ${control}–${lines.length})`);
  const after = end === undefined ? 0 : lines.slice(end + 1).filter((l) => l.trim() !== '').length;
  if (after > 0) ignored.push(`${after} line(s) after .end`);
  const text = [
    ...out,
    '.control',
    opts.control.trim(),
    `echo ${opts.marker}`,
    `print ${opts.measure}`,
    '.endc',
    '.end',
    '',
  ].join('\n');
  return { text, ignored };
}

/** A measurement read from ngspice's output, or why there is none. */
export type MeasureReading = { ok: true; value: number } | { ok: false; reason: string };

const NUM = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`;

/** Reads `name = value` printed after the results marker; otherwise explains what went wrong. */
export function readMeasurement(
  stdout: string,
  stderr: string,
  measure: string,
  marker: string,
): MeasureReading {
  const at = stdout.lastIndexOf(marker);
  if (at < 0) {
    const err = firstError(stderr) ?? firstError(stdout);
    return {
      ok: false,
      reason: `the netlist did not simulate${err === undefined ? ' (ngspice stopped before the measurement)' : `: ${err}`}`,
    };
  }
  const re = new RegExp(String.raw`^\s*${escape(measure)}\s*=\s*(${NUM})\s*$`, 'im');
  const m = re.exec(stdout.slice(at));
  if (m !== null) {
    const value = Number(m[1]);
    if (Number.isFinite(value)) return { ok: true, value };
  }
  const why = measureError(stdout, stderr, measure) ?? firstError(stderr);
  return { ok: false, reason: `measurement ${measure} failed${why === undefined ? '' : `: ${why}`}` };
}

/** The first error ngspice reported, with the line or two after it (the offending netlist line). */
function firstError(text: string): string | undefined {
  const lines = text.split('\n').map((l) => l.trim());
  const i = lines.findIndex((l) => /\berror\b/i.test(l) || /simulation interrupted/i.test(l));
  if (i < 0) return undefined;
  return lines
    .slice(i, i + 4)
    .filter((l) => l.length > 0 && !/^note:/i.test(l))
    .join(' ')
    .slice(0, 400);
}

function measureError(stdout: string, stderr: string, measure: string): string | undefined {
  const name = new RegExp(String.raw`\b${escape(measure)}\b`, 'i');
  const lines = `${stderr}\n${stdout}`.split('\n').map((l) => l.trim());
  return lines.find((l) => name.test(l) && /error|failed/i.test(l));
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
