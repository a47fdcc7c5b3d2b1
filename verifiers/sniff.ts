/**
 * Content sniffing for the `file.format` verifier: does a file look like the format it claims?
 * Light checks only; the app-based verifiers reopen the file for real.
 */
import { sniffStl } from './cad/stl-parse.js';

/** Result of a sniff: `ok`, and what was seen. */
export interface SniffResult {
  ok: boolean;
  /** What the content looks like, e.g. `binary STL, 1052 triangles`. */
  seen: string;
}

/** Canonical format for each accepted name or extension. */
const ALIASES: Record<string, string> = {
  stl: 'stl',
  cir: 'spice',
  spice: 'spice',
  sp: 'spice',
  net: 'spice',
  ckt: 'spice',
  v: 'verilog',
  verilog: 'verilog',
  sv: 'verilog',
};

/** The canonical name of a declared format (`cir` → `spice`); unknown names are returned as given. */
export function canonicalFormat(format: string): string {
  const f = format.toLowerCase().replace(/^\./, '');
  return ALIASES[f] ?? f;
}

/** Sniffs non-empty bytes as `format` (a declared format or extension). */
export function sniff(format: string, bytes: Buffer): SniffResult {
  switch (canonicalFormat(format)) {
    case 'stl':
      return sniffStlFile(bytes);
    case 'spice':
      return sniffSpice(bytes.toString('utf8'));
    case 'verilog':
      return sniffVerilog(bytes.toString('utf8'));
    default:
      return { ok: bytes.length > 0, seen: `${bytes.length} bytes (no content check for this format)` };
  }
}

function sniffStlFile(bytes: Buffer): SniffResult {
  const s = sniffStl(bytes);
  if (s.kind === 'invalid') return { ok: false, seen: s.reason };
  if (s.kind === 'binary')
    return s.triangles > 0
      ? { ok: true, seen: `binary STL, ${s.triangles} triangles (size 84 + 50·${s.triangles} bytes)` }
      : { ok: false, seen: 'binary STL with 0 triangles' };
  return { ok: true, seen: 'ASCII STL (solid … facet)' };
}

/** Element lines: a letter naming a device, a name, then at least two nodes. */
const ELEMENT = /^[rclvikedfghxbjmqsotwuyz]\S*\s+\S+\s+\S+/i;

function sniffSpice(text: string): SniffResult {
  // The first line of a SPICE deck is its title, whatever it says.
  const lines = text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .slice(1)
    .map((l) => l.trim());
  const body = lines.filter((l) => l !== '' && !l.startsWith('*'));
  const elements = body.filter((l) => ELEMENT.test(l) && !l.startsWith('.')).length;
  const end = body.some((l) => /^\.end\s*$/i.test(l));
  const ok = elements > 0 && end;
  const missing = [elements === 0 ? 'no element lines' : '', end ? '' : 'no .end line']
    .filter(Boolean)
    .join(', ');
  return {
    ok,
    seen: ok ? `SPICE netlist, ${elements} element line(s), .end` : `not a SPICE netlist: ${missing}`,
  };
}

function sniffVerilog(text: string): SniffResult {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
  const modules = [...code.matchAll(/\bmodule\s+([A-Za-z_][A-Za-z0-9_$]*)[\s\S]*?\bendmodule\b/g)].map(
    (m) => m[1],
  );
  return modules.length > 0
    ? { ok: true, seen: `Verilog, module(s): ${modules.join(', ')}` }
    : { ok: false, seen: 'not Verilog: no "module … endmodule"' };
}
