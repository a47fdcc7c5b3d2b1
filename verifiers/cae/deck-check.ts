/**
 * Checks of a CalculiX deck before it is solved, each naming the defect a person would name: steps
 * (present, closed, with a procedure), every set, node, element, surface and material a keyword
 * names exists and is not empty, every element has a section and so a material, materials define
 * what the steps need (stiffness; density for frequency and dynamics), and every static step has a
 * load that acts on free DOFs and constraints that hold every part against rigid-body motion.
 * ccx 2.20 runs several of these defects to "Job finished" with exit 0 (no or insufficient
 * *BOUNDARY, a load on clamped nodes, an element on an undefined node, a step without *END STEP).
 */
import { setMembers, targetNodes, where, type Constraint, type Deck, type Load } from './deck-model.js';
import { freeRigidModes, partsOf, rowTestLimit, type Part } from './rigid.js';
import { vec } from '../judge-value.js';

/** The deck's facts, reported as measured values. */
export interface DeckSummary {
  nodes: number;
  elements: number;
  parts: number;
  steps: string[];
  materials: string[];
  constrained_dofs: number;
  loads: number;
}

/** The outcome of the deck checks. */
export interface DeckReport {
  /** Defects, most basic first; empty when the deck is fit to solve. */
  defects: string[];
  /** Things the checks could not decide (reported, not failing). */
  notes: string[];
  summary: DeckSummary;
  parts: Part[];
}

const STIFFNESS = [
  'ELASTIC',
  'HYPERELASTIC',
  'HYPERFOAM',
  'USERMATERIAL',
  'DEFORMATIONPLASTICITY',
  'ANISOHYPERINV',
  'ANISOHYPERSTRAIN',
];
const MECHANICAL = [
  'STATIC',
  'FREQUENCY',
  'BUCKLE',
  'DYNAMIC',
  'MODALDYNAMIC',
  'STEADYSTATEDYNAMICS',
  'COMPLEXFREQUENCY',
  'VISCO',
];
const NEEDS_DENSITY = ['FREQUENCY', 'DYNAMIC', 'MODALDYNAMIC', 'STEADYSTATEDYNAMICS', 'COMPLEXFREQUENCY'];
const NODE_LOADS = new Set(['CLOAD', 'TEMPERATURE', 'CFLUX']);
const SURFACE_LOADS = new Set(['DSLOAD', 'DSFLUX']);

/** Runs every check on `deck`. */
export function checkDeck(deck: Deck): DeckReport {
  const defects = [...deck.meshProblems, ...deck.problems];
  const notes: string[] = [];
  const parts = partsOf(deck);
  defects.push(...stepDefects(deck), ...referenceDefects(deck), ...materialDefects(deck));
  // Constraint and load checks read the sets; on a deck whose references are broken they would only
  // repeat the same defect in other words.
  if (defects.length === 0) {
    const limit = rowTestLimit(deck);
    let lastDofs = -1;
    for (const s of deck.steps.filter((x) => x.procedure === 'STATIC')) {
      const bcs = deck.boundaries.filter((b) => b.step === null || b.step <= s.index);
      const loads = deck.loads.filter((l) => l.step === null || l.step <= s.index);
      const label = `static step ${s.index} (${where(s.loc)})`;
      const load = loadDefect(deck, label, bcs, loads);
      if (load !== null) defects.push(load);
      if (bcs.length === lastDofs) continue;
      lastDofs = bcs.length;
      if (bcs.length === 0 && limit === null) {
        defects.push(
          `no *BOUNDARY holds the model, so ${label} is singular: all six rigid-body motions are free (ccx 2.20 still exits 0 and prints "Job finished", with displacements ~10⁹ × the model's size)`,
        );
        continue;
      }
      const free = freeRigidModes(deck, parts, bcs);
      if (free.length > 0 && limit !== null) {
        notes.push(`rigid-body check of the constraints skipped (${limit}); the solution is checked instead`);
        continue;
      }
      for (const f of free) {
        const part =
          parts.length > 1
            ? `part ${parts.indexOf(f.part) + 1} of ${parts.length} (${f.part.nodes.length} nodes in ${vec(f.part.box.min)}–${vec(f.part.box.max)})`
            : 'the model';
        defects.push(
          `${label}: the *BOUNDARY conditions hold ${f.dofs} DOF(s) of ${part}, which leave ${6 - f.rank} rigid-body motion(s) free${f.free.length > 0 ? ` (${f.free.join(', ')})` : ''}: the stiffness is singular (ccx 2.20 still exits 0 and prints "Job finished")`,
        );
      }
    }
  }
  const constrained = deck.boundaries.reduce(
    (a, b) => a + (targetNodes(deck, b.target)?.length ?? 0) * (Math.max(0, b.last - b.first) + 1),
    0,
  );
  return {
    defects,
    notes,
    parts,
    summary: {
      nodes: deck.nodes.size,
      elements: deck.elements.size,
      parts: parts.length,
      steps: deck.steps.map((s) => s.procedure ?? 'none'),
      materials: [...deck.materials.values()].map((m) => m.name),
      constrained_dofs: constrained,
      loads: deck.loads.length,
    },
  };
}

function stepDefects(deck: Deck): string[] {
  if (deck.steps.length === 0)
    return ['the deck has no *STEP, so ccx solves nothing (it still exits 0 and prints "Job finished")'];
  const out: string[] = [];
  for (const s of deck.steps) {
    if (!s.ended)
      out.push(
        `*STEP at ${where(s.loc)} has no *END STEP, so ccx skips it (and still prints "Job finished")`,
      );
    else if (s.procedure === null)
      out.push(`*STEP at ${where(s.loc)} names no procedure (*STATIC, *FREQUENCY, *BUCKLE, …)`);
  }
  return out;
}

function referenceDefects(deck: Deck): string[] {
  const out: string[] = [];
  const known = (kind: 'nset' | 'elset'): string => {
    const names = [...(kind === 'nset' ? deck.nsets : deck.elsets).values()].map((s) => s.name.toUpperCase());
    return names.length === 0
      ? 'none defined'
      : `defined: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}`;
  };
  const nodeTarget = (target: string, by: string, at: string): void => {
    const id = Number(target);
    if (target !== '' && Number.isInteger(id)) {
      if (!deck.nodes.has(id)) out.push(`${by} (${at}) acts on node ${id}, which no *NODE defines`);
      return;
    }
    const s = setMembers(deck, 'nset', target, (m) =>
      out.push(`node set ${target.toUpperCase()} includes set ${m.toUpperCase()}, which is not defined`),
    );
    if (s === undefined)
      out.push(
        `${by} (${at}) acts on node set ${target.toUpperCase()}, which the deck does not define (${known('nset')})`,
      );
    else if (s.size === 0) out.push(`${by} (${at}) acts on node set ${target.toUpperCase()}, which is empty`);
  };
  const elemTarget = (target: string, by: string, at: string): void => {
    const id = Number(target);
    if (target !== '' && Number.isInteger(id)) {
      if (!deck.elements.has(id)) out.push(`${by} (${at}) acts on element ${id}, which no *ELEMENT defines`);
      return;
    }
    const s = setMembers(deck, 'elset', target);
    if (s === undefined)
      out.push(
        `${by} (${at}) acts on element set ${target.toUpperCase()}, which the deck does not define (${known('elset')})`,
      );
    else if (s.size === 0)
      out.push(`${by} (${at}) acts on element set ${target.toUpperCase()}, which is empty`);
  };
  for (const b of deck.boundaries) nodeTarget(b.target, '*BOUNDARY', where(b.loc));
  for (const l of deck.loads) {
    const by = `*${l.keyword}`;
    if (NODE_LOADS.has(l.keyword)) nodeTarget(l.target, by, where(l.loc));
    else if (SURFACE_LOADS.has(l.keyword)) {
      if (!deck.surfaces.has(l.target.toUpperCase()))
        out.push(
          `${by} (${where(l.loc)}) acts on surface ${l.target.toUpperCase()}, which no *SURFACE defines`,
        );
    } else elemTarget(l.target, by, where(l.loc));
  }
  for (const s of deck.sections) {
    elemTarget(s.elset, `*${s.keyword}`, where(s.loc));
    if (s.material !== undefined && !deck.materials.has(s.material.toUpperCase())) {
      const names = [...deck.materials.values()].map((m) => m.name.toUpperCase());
      out.push(
        `*${s.keyword} (${where(s.loc)}) assigns material ${s.material.toUpperCase()}, which no *MATERIAL defines (${names.length === 0 ? 'none defined' : `defined: ${names.join(', ')}`})`,
      );
    }
  }
  for (const r of deck.refs) {
    const map = r.kind === 'nset' ? deck.nsets : deck.elsets;
    if (r.kind !== 'surface' && !map.has(r.name.toUpperCase()))
      out.push(
        `${r.by} (${where(r.loc)}) names ${r.kind === 'nset' ? 'node' : 'element'} set ${r.name.toUpperCase()}, which the deck does not define (${known(r.kind)})`,
      );
  }
  return [...new Set(out)];
}

function materialDefects(deck: Deck): string[] {
  const out: string[] = [];
  const covered = new Set<number>();
  const used = new Map<string, string>();
  for (const s of deck.sections) {
    for (const id of setMembers(deck, 'elset', s.elset) ?? []) covered.add(id);
    if (s.material !== undefined) used.set(s.material.toUpperCase(), s.elset.toUpperCase());
  }
  let bare = 0;
  let first: number | undefined;
  for (const id of deck.elements.keys())
    if (!covered.has(id)) {
      bare++;
      first ??= id;
    }
  if (bare > 0) {
    const e = deck.elements.get(first!)!;
    const inSet = [...deck.elsets.values()].find((s) => s.ids.includes(first!));
    out.push(
      `${bare} of ${deck.elements.size} elements are in no *SOLID SECTION (or other section), so they have no material: e.g. element ${first} (${e.type}${inSet ? `, element set ${inSet.name.toUpperCase()}` : ''})`,
    );
  }
  const procs = new Set(deck.steps.map((s) => s.procedure ?? ''));
  const gravity = deck.loads.some((l) => l.type === 'GRAV' || l.type === 'CENTRIF');
  const densityFor = NEEDS_DENSITY.find((p) => procs.has(p)) ?? (gravity ? 'GRAV' : undefined);
  for (const [key, elset] of used) {
    const m = deck.materials.get(key);
    if (m === undefined) continue;
    if (MECHANICAL.some((p) => procs.has(p)) && !STIFFNESS.some((k) => m.props.has(k)))
      out.push(
        `material ${key} (${where(m.loc)}, element set ${elset}) has no *ELASTIC (nor another stiffness definition)`,
      );
    if (densityFor !== undefined && !m.props.has('DENSITY'))
      out.push(
        `material ${key} (${where(m.loc)}, element set ${elset}) has no *DENSITY, which ${densityFor === 'GRAV' ? 'a gravity/centrifugal *DLOAD' : `the *${densityFor} step`} needs`,
      );
  }
  return out;
}

function loadDefect(
  deck: Deck,
  label: string,
  bcs: readonly Constraint[],
  loads: readonly Load[],
): string | null {
  if (bcs.some((b) => b.magnitude !== 0)) return null; // a prescribed displacement drives the step
  if (loads.length === 0)
    return `${label} has no load: no *CLOAD, *DLOAD, *DSLOAD, *TEMPERATURE or prescribed *BOUNDARY displacement, so its solution is zero`;
  const live = loads.filter((l) => l.magnitude !== 0);
  if (live.length === 0)
    return `every load of ${label} is zero (${loads
      .map((l) => `*${l.keyword} ${l.target} at ${where(l.loc)}`)
      .slice(0, 3)
      .join('; ')})`;
  if (live.some((l) => l.keyword !== 'CLOAD')) return null;
  const held = new Map<number, Set<number>>();
  for (const b of bcs)
    for (const n of targetNodes(deck, b.target) ?? []) {
      let s = held.get(n);
      if (s === undefined) held.set(n, (s = new Set()));
      for (let d = b.first; d <= b.last; d++) s.add(d);
    }
  const acts = live.some((l) =>
    (targetNodes(deck, l.target) ?? []).some((n) => l.dof === undefined || !held.get(n)?.has(l.dof)),
  );
  if (acts) return null;
  const l = live[0]!;
  return `the *CLOAD of ${label} acts only on constrained DOFs (${l.target.toUpperCase()} DOF ${l.dof} at ${where(l.loc)} is held by *BOUNDARY), so the *BOUNDARY absorbs it and the model carries no load`;
}
