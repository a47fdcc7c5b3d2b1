/**
 * Finding a named number in parsed data: JSON pointers and dotted paths over JSON values, and
 * `<row>.<column>` over a CSV table read with its header.
 */

/** A value found (a finite number), or why there is none. */
export type Found = { ok: true; value: number } | { ok: false; why: string };

/** A CSV table: rows by key (first or `csv_key` column) and in file order. */
export interface CsvTable {
  byKey: Record<string, Record<string, string>>;
  list: Record<string, string>[];
  columns: string[];
}

/**
 * Splits a path into keys: a JSON pointer (`/a/b~1c` → `a`, `b/c`) when it starts with `/`, else a
 * dotted path (`a.b\.c` → `a`, `b.c`).
 */
export function pathKeys(p: string): string[] {
  if (p.startsWith('/'))
    return p
      .slice(1)
      .split('/')
      .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
  return p.split(/(?<!\\)\./).map((k) => k.replaceAll('\\.', '.'));
}

const keysOf = (o: object): string => {
  const ks = Array.isArray(o) ? [`0 … ${o.length - 1}`] : Object.keys(o);
  return ks.length === 0 ? 'none' : ks.slice(0, 8).join(', ') + (ks.length > 8 ? ', …' : '');
};

/**
 * The number at `p` in `doc` (parsed JSON, or a `CsvTable` when `csv`). CSV cells are read as
 * numbers; in JSON a number written as a string is refused (the deliverable should hold numbers).
 */
export function lookup(doc: unknown, p: string, csv = false): Found {
  const keys = pathKeys(p);
  let cur: unknown = doc;
  const walked: string[] = [];
  for (const [i, k] of keys.entries()) {
    const here = walked.length === 0 ? 'the top level' : walked.join('.');
    if (csv && i === 0) {
      const t = doc as CsvTable;
      const idx = /^\d+$/.test(k) ? Number(k) : -1;
      cur = Object.hasOwn(t.byKey, k) ? t.byKey[k] : t.list[idx];
      if (cur === undefined)
        return {
          ok: false,
          why: `no row "${k}" (rows: ${Object.keys(t.byKey).slice(0, 8).join(', ') || 'none'})`,
        };
    } else if (Array.isArray(cur)) {
      if (!/^\d+$/.test(k) || Number(k) >= cur.length)
        return { ok: false, why: `${here} is a list of ${cur.length}, no item "${k}"` };
      cur = cur[Number(k)];
    } else if (cur !== null && typeof cur === 'object') {
      if (!Object.hasOwn(cur, k)) return { ok: false, why: `no "${k}" in ${here} (keys: ${keysOf(cur)})` };
      cur = (cur as Record<string, unknown>)[k];
    } else return { ok: false, why: `${here} is ${JSON.stringify(cur)}, not an object or list` };
    walked.push(k);
  }
  if (typeof cur === 'number') return Number.isFinite(cur) ? { ok: true, value: cur } : bad(cur);
  if (csv && typeof cur === 'string') {
    const s = cur.trim();
    const n = s === '' ? NaN : Number(s);
    return Number.isFinite(n) ? { ok: true, value: n } : { ok: false, why: `cell "${cur}" is not a number` };
  }
  return bad(cur);
}

function bad(v: unknown): Found {
  const what =
    v === null
      ? 'null'
      : typeof v === 'string'
        ? `the string ${JSON.stringify(v)}`
        : Array.isArray(v)
          ? `a list of ${v.length}`
          : typeof v === 'object'
            ? `an object (keys: ${keysOf(v as object)})`
            : (JSON.stringify(v) ?? String(v));
  return { ok: false, why: `is ${what}, not a number` };
}

/** Splits CSV text into records (RFC 4180: quoted fields, doubled quotes, newlines in quotes). */
function parseCsv(text: string, delimiter = ','): string[][] | { error: string } {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === delimiter) {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (quoted) return { error: 'a quoted field is not closed' };
  row.push(field);
  if (row.length > 1 || row[0] !== '') rows.push(row);
  return rows;
}

/** Reads CSV text with a header row into a table keyed by `key` (default: the first column). */
export function parseCsvTable(text: string, delimiter = ',', key?: string): CsvTable | { error: string } {
  const recs = parseCsv(text, delimiter);
  if ('error' in recs) return recs;
  const [header, ...body] = recs;
  if (header === undefined || header.length < 2)
    return { error: `no header row with at least two columns (delimiter ${JSON.stringify(delimiter)})` };
  const columns = header.map((h) => h.trim());
  const k = key ?? columns[0]!;
  if (!columns.includes(k)) return { error: `no key column "${k}" (columns: ${columns.join(', ')})` };
  const list = body.map((r) => Object.fromEntries(columns.map((c, j) => [c, r[j] ?? ''])));
  const byKey: CsvTable['byKey'] = {};
  for (const r of list) byKey[r[k]!.trim()] ??= r;
  return { byKey, list, columns };
}
