/**
 * A reader for Abaqus/CalculiX input decks (`.inp`): nodes, elements with their connectivity, node
 * and element sets, surfaces, materials and the properties each defines, section assignments,
 * `*BOUNDARY` constraints, loads and steps, each with the file and line it came from. `*INCLUDE`d
 * files are read in place (the caller loads them: see `deck-load.ts`). Keywords and option names are
 * compared as ccx compares them: upper case, blanks removed; set names are case-insensitive.
 *
 * Syntax a solver cannot read (a malformed node line, `*ELEMENT` without `TYPE=`, a file that ends
 * inside an element) throws `ArtifactInvalidError`; defects of meaning (an element with the wrong
 * number of nodes, a set naming a set that does not exist) are collected in `problems`.
 */
import { ArtifactInvalidError } from '../errors.js';
import { deadline } from '../timeout.js';
import { elementNodeCount } from './elements.js';
import { where, type Deck, type DeckSet, type Loc, type Material, type Step } from './deck-model.js';

/** Splits `*ELEMENT, type=C3D10, ELSET=Volume1` into a name and options, as ccx reads them. */
function keyword(line: string): { name: string; label: string; opts: Record<string, string> } {
  const parts = line
    .slice(1)
    .split(',')
    .map((s) => s.trim());
  const opts: Record<string, string> = {};
  for (const p of parts.slice(1)) {
    const eq = p.indexOf('=');
    if (eq < 0) opts[p.replace(/\s+/g, '').toUpperCase()] = '';
    else
      opts[p.slice(0, eq).replace(/\s+/g, '').toUpperCase()] = p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
  }
  const first = (parts[0] ?? '').toUpperCase();
  return { name: first.replace(/\s+/g, ''), label: first.replace(/\s+/g, ' '), opts };
}

const SECTIONS = new Set([
  'SOLIDSECTION',
  'SHELLSECTION',
  'BEAMSECTION',
  'BEAMGENERALSECTION',
  'MEMBRANESECTION',
  'FLUIDSECTION',
  'USERSECTION',
  'SPRING',
  'DASHPOT',
  'GAP',
  'MASS',
]);
const MATERIAL_PROPS = new Set([
  'ELASTIC',
  'DENSITY',
  'PLASTIC',
  'CYCLICHARDENING',
  'EXPANSION',
  'CONDUCTIVITY',
  'SPECIFICHEAT',
  'HYPERELASTIC',
  'HYPERFOAM',
  'USERMATERIAL',
  'DEFORMATIONPLASTICITY',
  'CREEP',
  'DAMPING',
  'DEPVAR',
  'ANISOHYPERINV',
  'ANISOHYPERSTRAIN',
  'ELECTRICALCONDUCTIVITY',
  'MAGNETICPERMEABILITY',
  'FLUIDCONSTANTS',
]);
const LOADS = new Set([
  'CLOAD',
  'DLOAD',
  'DSLOAD',
  'TEMPERATURE',
  'CFLUX',
  'DFLUX',
  'DSFLUX',
  'FILM',
  'RADIATE',
]);
const PROCEDURES = new Set([
  'STATIC',
  'FREQUENCY',
  'BUCKLE',
  'DYNAMIC',
  'MODALDYNAMIC',
  'STEADYSTATEDYNAMICS',
  'COMPLEXFREQUENCY',
  'HEATTRANSFER',
  'COUPLEDTEMPERATURE-DISPLACEMENT',
  'UNCOUPLEDTEMPERATURE-DISPLACEMENT',
  'VISCO',
  'GREEN',
  'SENSITIVITY',
  'ELECTROMAGNETICS',
  'CFD',
]);
const OUTPUTS = new Set(['NODEPRINT', 'NODEFILE', 'NODEOUTPUT', 'ELPRINT', 'ELFILE', 'ELEMENTOUTPUT']);

type Mode =
  | { kind: 'node'; nset?: DeckSet }
  | { kind: 'element'; type: string; need: number; elset?: DeckSet }
  | { kind: 'set'; set: DeckSet; generate: boolean }
  | { kind: 'boundary' }
  | { kind: 'load'; keyword: string }
  | null;

/** The `*INCLUDE`d files, by the path the deck gives (`INPUT=`), with the path they resolve to. */
export type Included = ReadonlyMap<string, { rel: string; text: string }>;

/**
 * Parses a deck. `included` holds the text of every `*INCLUDE` (see `loadDeck`); an include it
 * lacks throws. With `included` null, `*INCLUDE` lines are skipped (a mesh read on its own).
 */
export function parseDeck(
  main: { rel: string; text: string },
  included: Included | null,
  limitMs: number,
): Deck {
  const clock = deadline(limitMs, '.inp parse');
  const deck: Deck = {
    nodes: new Map(),
    elements: new Map(),
    elementsByType: {},
    nsets: new Map(),
    elsets: new Map(),
    surfaces: new Map(),
    materials: new Map(),
    sections: [],
    boundaries: [],
    loads: [],
    steps: [],
    refs: [],
    keywords: new Set(),
    meshProblems: [],
    problems: [],
  };
  let mode: Mode = null;
  let material: Material | null = null;
  let step: Step | null = null;
  let pending: { id: number; nodes: number[]; need: number; type: string; loc: Loc } | null = null;
  let count = 0;
  const setOf = (kind: 'nset' | 'elset', name: string, loc: Loc): DeckSet => {
    const map = kind === 'nset' ? deck.nsets : deck.elsets;
    const key = name.toUpperCase();
    let s = map.get(key);
    if (s === undefined) map.set(key, (s = { name, ids: [], refs: [], loc }));
    return s;
  };
  const closeElement = (atEof: boolean): void => {
    if (pending === null) return;
    const p = pending;
    pending = null;
    if (p.need > 0 && p.nodes.length < p.need) {
      const what = `element ${p.id} (${p.type}, ${where(p.loc)}) has ${p.nodes.length} of its ${p.need} nodes`;
      if (atEof) throw new ArtifactInvalidError(`truncated: the file ends inside ${what}`);
      deck.meshProblems.push(what);
    }
    addElement(p.id, p.type, p.nodes);
  };
  const addElement = (id: number, type: string, nodes: number[]): void => {
    deck.elements.set(id, { type, nodes });
    deck.elementsByType[type] = (deck.elementsByType[type] ?? 0) + 1;
    if (mode?.kind === 'element' && mode.elset) mode.elset.ids.push(id);
  };

  const read = (file: string, text: string, depth: number): void => {
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      if ((++count & 4095) === 0) clock.check();
      const line = lines[i]!.trim();
      if (line === '' || line.startsWith('**')) continue;
      const loc = { file, line: i + 1 };
      if (line.startsWith('*')) {
        closeElement(false);
        const kw = keyword(line);
        deck.keywords.add(kw.name);
        mode = null;
        if (!MATERIAL_PROPS.has(kw.name)) material = null;
        if (kw.name === 'INCLUDE') {
          if (included === null) continue;
          const input = kw.opts['INPUT'];
          const inc = input === undefined ? undefined : included.get(input);
          if (inc === undefined)
            throw new ArtifactInvalidError(
              `${where(loc)}: *INCLUDE ${input ?? 'without INPUT='} was not loaded`,
            );
          if (depth >= 8) throw new ArtifactInvalidError(`${where(loc)}: *INCLUDE nested more than 8 deep`);
          read(inc.rel, inc.text, depth + 1);
        } else keywordLine(kw, loc);
        continue;
      }
      dataLine(line, loc);
    }
  };

  const keywordLine = (kw: ReturnType<typeof keyword>, loc: Loc): void => {
    const o = kw.opts;
    const n = kw.name;
    if (n === 'NODE') mode = { kind: 'node', ...(o['NSET'] ? { nset: setOf('nset', o['NSET'], loc) } : {}) };
    else if (n === 'ELEMENT') {
      const type = o['TYPE']?.toUpperCase();
      if (type === undefined) throw new ArtifactInvalidError(`${where(loc)}: *ELEMENT without TYPE=`);
      mode = {
        kind: 'element',
        type,
        need: elementNodeCount(type),
        ...(o['ELSET'] ? { elset: setOf('elset', o['ELSET'], loc) } : {}),
      };
    } else if (n === 'NSET' || n === 'ELSET') {
      const name = o[n];
      if (name === undefined) throw new ArtifactInvalidError(`${where(loc)}: *${n} without a name`);
      mode = {
        kind: 'set',
        set: setOf(n === 'NSET' ? 'nset' : 'elset', name, loc),
        generate: 'GENERATE' in o,
      };
    } else if (n === 'SURFACE') {
      const name = o['NAME'];
      if (name !== undefined && !deck.surfaces.has(name.toUpperCase()))
        deck.surfaces.set(name.toUpperCase(), { name, loc });
    } else if (n === 'MATERIAL') {
      const name = o['NAME'];
      if (name === undefined) throw new ArtifactInvalidError(`${where(loc)}: *MATERIAL without NAME=`);
      material = { name, props: new Set(), loc };
      deck.materials.set(name.toUpperCase(), material);
    } else if (MATERIAL_PROPS.has(n)) material?.props.add(n);
    else if (SECTIONS.has(n)) {
      const elset = o['ELSET'];
      if (elset === undefined) deck.problems.push(`${where(loc)}: *${kw.label} without ELSET=`);
      else
        deck.sections.push({
          keyword: kw.label,
          elset,
          ...(o['MATERIAL'] ? { material: o['MATERIAL'] } : {}),
          loc,
        });
    } else if (n === 'BOUNDARY') mode = { kind: 'boundary' };
    else if (LOADS.has(n)) mode = { kind: 'load', keyword: n };
    else if (n === 'STEP') {
      step = { index: deck.steps.length + 1, loc, procedure: null, ended: false };
      deck.steps.push(step);
    } else if (n === 'ENDSTEP') {
      if (step !== null) step.ended = true;
      step = null;
    } else if (PROCEDURES.has(n)) {
      if (step !== null && step.procedure === null) step.procedure = n;
    } else if (OUTPUTS.has(n)) {
      if (o['NSET']) deck.refs.push({ kind: 'nset', name: o['NSET'], by: `*${kw.label}`, loc });
      if (o['ELSET']) deck.refs.push({ kind: 'elset', name: o['ELSET'], by: `*${kw.label}`, loc });
    }
  };

  const dataLine = (line: string, loc: Loc): void => {
    if (mode === null) return;
    const fields = line.split(',').map((s) => s.trim());
    if (fields.at(-1) === '') fields.pop();
    const m = mode;
    if (m.kind === 'node') {
      const xs = fields.slice(0, 4).map(Number);
      if (xs.length < 2 || xs.some((x) => !Number.isFinite(x)))
        throw new ArtifactInvalidError(`${where(loc)}: malformed node "${line.slice(0, 60)}"`);
      deck.nodes.set(xs[0]!, [xs[1]!, xs[2] ?? 0, xs[3] ?? 0]);
      m.nset?.ids.push(xs[0]!);
    } else if (m.kind === 'element') elementLine(m, fields, line, loc);
    else if (m.kind === 'set') {
      if (m.generate) {
        const [a, b, by] = fields.map(Number);
        if (!Number.isInteger(a) || !Number.isInteger(b ?? a))
          throw new ArtifactInvalidError(`${where(loc)}: malformed GENERATE line "${line.slice(0, 60)}"`);
        const s = Math.max(1, Math.abs(by || 1));
        for (let k = a!; k <= (b ?? a!); k += s) m.set.ids.push(k);
      } else
        for (const f of fields) {
          const x = Number(f);
          if (f !== '' && Number.isInteger(x)) m.set.ids.push(x);
          else if (f !== '') m.set.refs.push(f);
        }
    } else if (m.kind === 'boundary') {
      const first = Number(fields[1]);
      const last = fields[2] === undefined || fields[2] === '' ? first : Number(fields[2]);
      if (!Number.isInteger(first) || !Number.isInteger(last)) {
        deck.problems.push(
          `${where(loc)}: *BOUNDARY "${line.slice(0, 40)}": "${fields[1] ?? ''}" is not a degree of freedom (ccx takes the first and last DOF numbers)`,
        );
        return;
      }
      deck.boundaries.push({
        target: fields[0] ?? '',
        first,
        last,
        magnitude: Number(fields[3] ?? 0) || 0,
        step: step?.index ?? null,
        loc,
      });
    } else {
      const k = m.keyword;
      const magAt = k === 'TEMPERATURE' ? 1 : 2;
      const mag = Number(fields[magAt]);
      deck.loads.push({
        keyword: k,
        target: fields[0] ?? '',
        ...(k === 'CLOAD' && Number.isInteger(Number(fields[1])) ? { dof: Number(fields[1]) } : {}),
        ...(k === 'DLOAD' || k === 'DSLOAD' ? { type: (fields[1] ?? '').toUpperCase() } : {}),
        magnitude: Number.isFinite(mag) ? mag : 0,
        step: step?.index ?? null,
        loc,
      });
    }
  };

  const elementLine = (
    m: Extract<Mode, { kind: 'element' }>,
    fields: string[],
    line: string,
    loc: Loc,
  ): void => {
    const xs = fields.map(Number);
    if (xs.some((x) => !Number.isInteger(x)))
      throw new ArtifactInvalidError(`${where(loc)}: malformed element line "${line.slice(0, 60)}"`);
    if (pending !== null) {
      const room = pending.need > 0 ? pending.need - pending.nodes.length : Infinity;
      if (xs.length <= room) {
        pending.nodes.push(...xs);
        // ccx continues an element on the next line until it has all its nodes
        if (pending.need > 0 ? pending.nodes.length === pending.need : !line.endsWith(','))
          closeElement(false);
        return;
      }
      closeElement(false); // too many values for a continuation: it was short, and this is the next
    }
    const [id, ...nodes] = xs;
    if (m.need > 0 && nodes.length > m.need)
      deck.meshProblems.push(
        `element ${id} (${m.type}, ${where(loc)}) has ${nodes.length} nodes, the type has ${m.need}`,
      );
    const more = m.need > 0 ? nodes.length < m.need : line.endsWith(',');
    if (more) pending = { id: id!, nodes, need: m.need, type: m.type, loc };
    else addElement(id!, m.type, nodes);
  };

  read(main.rel, main.text, 0);
  closeElement(true);
  for (const [id, e] of deck.elements) {
    const missing = e.nodes.filter((n) => !deck.nodes.has(n));
    if (missing.length > 0) {
      deck.meshProblems.push(
        `element ${id} (${e.type}) uses node ${missing[0]}, which no *NODE defines` +
          countOthers(deck, (x) => x.nodes.some((n) => !deck.nodes.has(n))),
      );
      break;
    }
  }
  return deck;
}

function countOthers(deck: Deck, bad: (e: { nodes: number[] }) => boolean): string {
  let n = 0;
  for (const e of deck.elements.values()) if (bad(e)) n++;
  return n > 1 ? ` (${n} elements use undefined nodes)` : '';
}

/** The `*INCLUDE, INPUT=` paths of a deck text, with their line numbers. */
export function includesOf(text: string): { input: string; line: number }[] {
  const out: { input: string; line: number }[] = [];
  text.split(/\r?\n/).forEach((l, i) => {
    const t = l.trim();
    if (!t.startsWith('*') || t.startsWith('**')) return;
    const kw = keyword(t);
    if (kw.name === 'INCLUDE') out.push({ input: kw.opts['INPUT'] ?? '', line: i + 1 });
  });
  return out;
}
