/**
 * Referential integrity of an IFC file, read from its STEP text (before web-ifc, which silently
 * drops what it cannot resolve): every `#ref` names an entity of the DATA section, and every shape
 * representation is used by a product (directly, or through a type's representation maps). A
 * hand-edited model that points at a missing entity, or whose new geometry no element uses, is
 * broken the way a person would say it: "line 412 refers to #999, which no entity defines".
 */

/** One entity instance of the DATA section. */
export interface StepEntity {
  id: number;
  /** Entity type in upper case, e.g. `IFCWALL` (the first one for a complex instance). */
  type: string;
  /** 1-based line of the file where the instance starts. */
  line: number;
  /** Entity ids it references, in order. */
  refs: number[];
  /** The instance text, shortened for messages. */
  text: string;
  /** Why the instance is not well-formed (unbalanced parentheses), when it is not. */
  malformed?: string;
}

/** A `#ref` that names no entity. */
export interface DanglingRef {
  from: StepEntity;
  missing: number;
}

/** What the integrity check found. */
export interface IfcIntegrity {
  entities: number;
  references: number;
  /** Instances whose text is not well-formed. */
  malformed: StepEntity[];
  dangling: DanglingRef[];
  /** Shape representations no product or type uses. */
  orphans: StepEntity[];
}

const short = (s: string): string => (s.length > 140 ? `${s.slice(0, 137)}…` : s);

/**
 * Splits the DATA section of STEP text into entity instances with their references. Strings
 * (`'…'`, with `''` for a quote) and comments are skipped, so a `#` inside a name is not a
 * reference.
 */
export function stepEntities(text: string, tick: () => void = () => undefined): Map<number, StepEntity> {
  const out = new Map<number, StepEntity>();
  const data = /^\s*DATA\s*;/m.exec(text);
  if (data === null) return out;
  let i = data.index + data[0].length;
  let line = text.slice(0, i).split('\n').length;
  let start = -1;
  let startLine = 0;
  let refs: number[] = [];
  let cur = '';
  let depth = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i]!;
    if (ch === '\n' && ++line % 4096 === 0) tick();
    if (ch === "'") {
      // A string: skip to its closing quote ('' is an escaped quote).
      cur += ch;
      i++;
      while (i < n) {
        const c = text[i]!;
        if (c === '\n') line++;
        cur += c;
        i++;
        if (c === "'") {
          if (text[i] === "'") {
            cur += "'";
            i++;
            continue;
          }
          break;
        }
      }
      continue;
    }
    if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      line += (text.slice(i, stop).match(/\n/g) ?? []).length;
      i = stop;
      continue;
    }
    if (start < 0) {
      if (ch === '#') {
        start = i;
        startLine = line;
        refs = [];
        cur = '';
        depth = 0;
      } else if (text.startsWith('ENDSEC', i)) break;
      else {
        i++;
        continue;
      }
    }
    if (ch === '#' && cur.includes('=')) {
      const m = /^#(\d+)/.exec(text.slice(i, i + 24));
      if (m !== null) {
        refs.push(Number(m[1]));
        cur += m[0];
        i += m[0].length;
        continue;
      }
    }
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    if (ch === ';') {
      const head = /^#(\d+)\s*=\s*\(?\s*([A-Za-z0-9_]+)/.exec(cur);
      if (head !== null)
        out.set(Number(head[1]), {
          id: Number(head[1]),
          type: head[2]!.toUpperCase(),
          line: startLine,
          refs,
          text: short(`${cur};`.replace(/\s+/g, ' ')),
          ...(depth === 0 ? {} : { malformed: `${Math.abs(depth)} unclosed ${depth > 0 ? "'('" : "')'"}` }),
        });
      start = -1;
      cur = '';
      i++;
      continue;
    }
    cur += ch;
    i++;
  }
  return out;
}

/**
 * Checks references and representation use. `roots` are the ids of products and type products
 * (from web-ifc's type hierarchy); a shape representation not reachable from any of them is an
 * orphan.
 */
export function checkIntegrity(entities: Map<number, StepEntity>, roots: Iterable<number>): IfcIntegrity {
  const dangling: DanglingRef[] = [];
  let references = 0;
  for (const e of entities.values())
    for (const r of e.refs) {
      references++;
      if (!entities.has(r)) dangling.push({ from: e, missing: r });
    }
  const seen = new Set<number>();
  // Shape aspects name a product's shape but are not referenced by it: they are roots too.
  const aspects = [...entities.values()].filter((e) => e.type === 'IFCSHAPEASPECT').map((e) => e.id);
  const stack = [...roots, ...aspects];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const r of entities.get(id)?.refs ?? []) if (!seen.has(r)) stack.push(r);
  }
  const orphans = [...entities.values()].filter(
    (e) => e.type === 'IFCSHAPEREPRESENTATION' && !seen.has(e.id),
  );
  const malformed = [...entities.values()].filter((e) => e.malformed !== undefined);
  return { entities: entities.size, references, malformed, dangling, orphans };
}

/** `line 63: #49=IFCWALL(((; is malformed (3 unclosed '(')`. */
export function describeMalformed(e: StepEntity): string {
  return `line ${e.line}: ${e.text} is malformed (${e.malformed})`;
}

/** `line 412: #530=IFCRELFILLSELEMENT(…) refers to #999, which no entity defines`. */
export function describeDangling(d: DanglingRef): string {
  return `line ${d.from.line}: ${d.from.text} refers to #${d.missing}, which no entity defines`;
}

/** `line 398: #515=IFCSHAPEREPRESENTATION(…) is used by no product`. */
export function describeOrphan(e: StepEntity): string {
  return `line ${e.line}: ${e.text} is used by no product`;
}
