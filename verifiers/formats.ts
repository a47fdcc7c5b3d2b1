/**
 * Format names. One table says what each name means, everywhere: `file.format`, hand-off records
 * and failure attribution all canonicalise through it, so `net` cannot be SPICE in one place and a
 * KiCad netlist in another.
 */

/** The canonical formats engiloop can tell by content. */
export const FORMATS = [
  'stl',
  'step',
  'ifc',
  'dxf',
  'fcstd',
  'blend',
  'glb',
  'gltf',
  'gcode',
  'spice',
  'verilog',
  'kicad_pcb',
  'kicad_sch',
  'kicad_net',
  'msh',
  'inp',
  'frd',
  'png',
  'jpeg',
  'zip',
  'json',
] as const;
export type FormatName = (typeof FORMATS)[number];

/**
 * Other names (extensions, spellings) → the canonical name. `net` is a KiCad netlist (KiCad's own
 * extension); a SPICE netlist is `cir`, `sp`, `spice` or `ckt`.
 */
const ALIASES: Record<string, string> = {
  stp: 'step',
  p21: 'step',
  cir: 'spice',
  sp: 'spice',
  ckt: 'spice',
  v: 'verilog',
  sv: 'verilog',
  net: 'kicad_net',
  kicad_netlist: 'kicad_net',
  ngc: 'gcode',
  nc: 'gcode',
  gco: 'gcode',
  jpg: 'jpeg',
  txt: 'text',
};

/**
 * The canonical name of a declared format or extension (`cir` → `spice`, `.STP` → `step`); a name
 * not in the table is returned lower-cased, as given.
 */
export function canonicalFormat(format: string): string {
  const f = format.toLowerCase().replace(/^\./, '');
  return ALIASES[f] ?? f;
}

/** True when `format` names one of the formats engiloop can tell by content. */
export function isKnownFormat(format: string): format is FormatName {
  return (FORMATS as readonly string[]).includes(canonicalFormat(format));
}

/** How a reason names each format: "not a SPICE netlist", "looks like Verilog". */
export const FORMAT_LABELS: Record<FormatName | 'text' | 'unknown', string> = {
  stl: 'an STL',
  step: 'a STEP file',
  ifc: 'an IFC file',
  dxf: 'a DXF drawing',
  fcstd: 'a FreeCAD document',
  blend: 'a Blender file',
  glb: 'a GLB (binary glTF)',
  gltf: 'a glTF JSON file',
  gcode: 'G-code',
  spice: 'a SPICE netlist',
  verilog: 'Verilog',
  kicad_pcb: 'a KiCad board',
  kicad_sch: 'a KiCad schematic',
  kicad_net: 'a KiCad netlist',
  msh: 'a gmsh mesh',
  inp: 'a CalculiX input deck',
  frd: 'CalculiX .frd results',
  png: 'a PNG image',
  jpeg: 'a JPEG image',
  zip: 'a zip archive',
  json: 'JSON',
  text: 'plain text of no known format',
  unknown: 'binary data of no known format',
};
