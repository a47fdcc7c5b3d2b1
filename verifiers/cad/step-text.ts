/**
 * Reading a STEP file (ISO 10303-21) as text before OCCT sees it: the exchange structure must be
 * whole (`ISO-10303-21;`, a HEADER and a DATA section each closed by `ENDSEC;`, and
 * `END-ISO-10303-21;` at the end), and every `#ref` must name an entity the file defines. A file
 * cut short or missing an entity is reported as such, which OCCT's own errors (or a silently partial
 * shape) do not say. The header, comments and PRODUCT names are kept as the file's self-claims.
 */
import { claim, type SelfClaim } from './claims.js';

/** What the text of a STEP file shows. */
export interface StepScan {
  /** The first structural defect found, in the words a person would use; null when whole. */
  problem: string | null;
  /** Counts and markers, for the verdict's `measured`. */
  facts: {
    bytes: number;
    entities: number;
    /** Ends with `END-ISO-10303-21;`. */
    terminated: boolean;
    /** Sections seen, each with whether `ENDSEC;` closed it. */
    sections: { name: string; closed: boolean }[];
    /** References to entities the file never defines. */
    dangling: number;
  };
  /** FILE_DESCRIPTION, FILE_NAME, comments and PRODUCT names: what the file says about itself. */
  claims: SelfClaim[];
}

interface Statement {
  /** The statement with strings emptied (`''`) and comments removed. */
  code: string;
  /** Its string literals, in order. */
  strings: string[];
}

/**
 * Scans a STEP file. Linear in its size; never throws for bad content (the problem is returned).
 *
 * @example scanStep(bytes).problem // 'truncated STEP file: … no END-ISO-10303-21; at the end …'
 */
export function scanStep(bytes: Uint8Array): StepScan {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const claims: SelfClaim[] = [];
  const defined = new Map<number, string>();
  const refs: { to: number; from: number }[] = [];
  const sections: { name: string; closed: boolean }[] = [];
  const problems: string[] = [];
  let section: { name: string; closed: boolean } | null = null;
  let started = false;
  let terminated = false;
  let lastId = 0;

  const onStatement = (s: Statement): void => {
    const code = s.code.trim();
    const word = /^[A-Z0-9_-]+/i.exec(code)?.[0].toUpperCase() ?? '';
    if (!started) {
      started = true;
      if (code !== 'ISO-10303-21') problems.push('not a STEP file (does not start with "ISO-10303-21;")');
      return;
    }
    if (terminated) return;
    if (word === 'END-ISO-10303-21') {
      terminated = true;
      return;
    }
    if (word === 'HEADER' || word === 'DATA') {
      if (section !== null && !section.closed)
        problems.push(`the ${section.name} section is not closed by ENDSEC; before ${word}`);
      section = { name: word, closed: false };
      sections.push(section);
      return;
    }
    if (word === 'ENDSEC') {
      if (section !== null) section.closed = true;
      return;
    }
    if (section?.name === 'HEADER') {
      if (word === 'FILE_DESCRIPTION' || word === 'FILE_NAME') {
        // FILE_NAME's second string is its time stamp: a date, not a claim about the part.
        const said = word === 'FILE_NAME' ? s.strings.filter((_, i) => i !== 1) : s.strings;
        const c = claim(word, said.filter((x) => x.trim() !== '').join(' · '));
        if (c !== null) claims.push(c);
      }
      return;
    }
    const m = /^#(\d+)\s*=\s*([A-Z0-9_]*)/i.exec(code);
    if (m === null) return;
    const id = Number(m[1]);
    const type = m[2] === '' ? 'complex entity' : m[2]!.toUpperCase();
    if (defined.has(id)) problems.push(`entity #${id} is defined twice (${defined.get(id)} and ${type})`);
    defined.set(id, type);
    lastId = id;
    for (const r of code.slice(m[0].length).matchAll(/#(\d+)/g)) refs.push({ to: Number(r[1]), from: id });
    if (type === 'PRODUCT') {
      const c = claim(`PRODUCT #${id}`, [...new Set(s.strings.filter((x) => x.trim() !== ''))].join(' · '));
      if (c !== null) claims.push(c);
    }
  };

  // One pass: strings ('…', with '' for a quote), comments (/* … */), and statements ending at a
  // ';' outside both. Jumping between the special characters keeps it fast on large files.
  let code = '';
  let strings: string[] = [];
  let endState: 'ok' | 'string' | 'comment' = 'ok';
  const n = text.length;
  const special = /['/;]/g;
  let i = 0;
  scan: while (i < n) {
    special.lastIndex = i;
    const hit = special.exec(text);
    if (hit === null) {
      code += text.slice(i);
      break;
    }
    const k = hit.index;
    code += text.slice(i, k);
    if (hit[0] === ';') {
      onStatement({ code, strings });
      code = '';
      strings = [];
      i = k + 1;
    } else if (hit[0] === '/') {
      if (text[k + 1] !== '*') {
        code += '/';
        i = k + 1;
        continue;
      }
      const e = text.indexOf('*/', k + 2);
      const c = claim('a comment', text.slice(k + 2, e < 0 ? n : e));
      if (c !== null) claims.push(c);
      if (e < 0) {
        endState = 'comment';
        break;
      }
      i = e + 2;
    } else {
      let s = '';
      let j = k + 1;
      for (;;) {
        const q = text.indexOf("'", j);
        if (q < 0) {
          endState = 'string';
          code += text.slice(k, Math.min(n, k + 60));
          break scan;
        }
        s += text.slice(j, q);
        if (text[q + 1] !== "'") {
          j = q + 1;
          break;
        }
        s += "'";
        j = q + 2;
      }
      strings.push(s);
      code += "''";
      i = j;
    }
  }
  const trailing = code.trim();

  const facts = {
    bytes: bytes.byteLength,
    entities: defined.size,
    terminated,
    sections: sections.map((s) => ({ ...s })),
    dangling: 0,
  };
  const done = (problem: string | null): StepScan => ({ problem, facts, claims });
  if (!started || problems[0]?.startsWith('not a STEP file'))
    return done('not a STEP file (does not start with "ISO-10303-21;")');

  const missing = refs.filter((r) => !defined.has(r.to));
  facts.dangling = new Set(missing.map((r) => r.to)).size;
  const open = sections.filter((s) => !s.closed).map((s) => s.name);

  if (!terminated) {
    const after = lastId > 0 ? `, after entity #${lastId}` : '';
    const where =
      endState === 'string'
        ? `inside a string${after}`
        : endState === 'comment'
          ? `inside a comment${after}`
          : trailing !== ''
            ? `in the middle of a statement ("${excerpt(trailing)}")${after}`
            : `at the end of a statement${after}`;
    const unclosed =
      open.length > 0
        ? `; the ${open.join(' and ')} section${open.length > 1 ? 's are' : ' is'} not closed by ENDSEC;`
        : '';
    const lost =
      facts.dangling > 0
        ? `; ${facts.dangling} entit${facts.dangling === 1 ? 'y' : 'ies'} referred to are missing`
        : '';
    return done(
      `truncated STEP file: no END-ISO-10303-21; at the end — it stops ${where} (${facts.entities} entities read${lost}${unclosed})`,
    );
  }
  if (open.length > 0)
    return done(
      `unterminated STEP file: the ${open.join(' and ')} section${open.length > 1 ? 's are' : ' is'} not closed by ENDSEC;`,
    );
  if (problems.length > 0) return done(problems[0]!);
  if (!sections.some((s) => s.name === 'HEADER')) return done('the STEP file has no HEADER section');
  if (!sections.some((s) => s.name === 'DATA')) return done('the STEP file has no DATA section');
  if (defined.size === 0) return done('the DATA section of the STEP file defines no entities');
  if (missing.length > 0) {
    const shown = [...new Map(missing.map((r) => [r.to, r])).values()].slice(0, 3);
    return done(
      `dangling references: ${facts.dangling} entit${facts.dangling === 1 ? 'y is' : 'ies are'} referred to but never defined (${shown.map((r) => `#${r.to}, used by #${r.from} ${defined.get(r.from)}`).join('; ')}${facts.dangling > shown.length ? '; …' : ''})`,
    );
  }
  return done(null);
}

function excerpt(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 50 ? `${one.slice(0, 50)}…` : one;
}
