/**
 * A small STL reader: binary and ASCII, with the checks a verifier needs (empty, truncated, size
 * mismatch, non-numeric or non-finite coordinates) and a time limit on the parse. Returns a triangle
 * soup; `weld` (see `weld.ts`) turns it into an indexed mesh.
 */
import { ArtifactInvalidError } from '../errors.js';
import { deadline } from '../timeout.js';

/** Triangles as read from the file: 9 floats (3 corners × xyz) per triangle. */
export interface TriangleSoup {
  format: 'binary' | 'ascii';
  triangles: number;
  positions: Float32Array;
  /**
   * What the file says about itself: the 80-byte header of a binary STL, or the name after `solid`
   * of an ASCII one (printable text only). Never evidence: only the triangles are measured.
   */
  header: string;
}

/** What the first bytes of a file say it is. */
export type StlSniff =
  { kind: 'binary'; triangles: number } | { kind: 'ascii' } | { kind: 'invalid'; reason: string };

/** Options of `parseStl`. */
export interface ParseStlOptions {
  /** Time limit of the parse in ms. Default 20 000. */
  limitMs?: number;
  /** Largest triangle count accepted. Default 20 000 000. */
  maxTriangles?: number;
  /** Clock for the time limit (ms); injectable for tests. */
  now?: () => number;
}

const HEADER = 84;
const RECORD = 50;

/**
 * Classifies bytes as binary STL (84 + 50·n bytes, n from the header), ASCII STL (starts with
 * `solid` and has a `facet`), or neither, with the reason.
 */
export function sniffStl(buf: Buffer): StlSniff {
  if (buf.length === 0) return { kind: 'invalid', reason: 'file is empty (0 bytes)' };
  if (buf.length >= HEADER) {
    const n = buf.readUInt32LE(80);
    if (HEADER + RECORD * n === buf.length) return { kind: 'binary', triangles: n };
  }
  const head = buf.subarray(0, 512).toString('latin1').trimStart();
  if (/^solid\b/i.test(head)) {
    // A binary file may also start with "solid" in its header; the size check above came first.
    return /\bfacet\b/.test(buf.toString('latin1'))
      ? { kind: 'ascii' }
      : { kind: 'invalid', reason: 'ASCII STL has no facet (empty solid or truncated)' };
  }
  if (buf.length < HEADER)
    return { kind: 'invalid', reason: `not an STL: ${buf.length} bytes, no "solid" header` };
  const n = buf.readUInt32LE(80);
  const want = HEADER + RECORD * n;
  const sizes = `header declares ${n} triangles (${want} bytes) but the file has ${buf.length} bytes`;
  // A file holding at least half of what its header declares reads as cut short; less, as not an STL.
  return want > buf.length
    ? {
        kind: 'invalid',
        reason:
          buf.length >= want / 2
            ? `truncated binary STL: ${sizes}`
            : `not an STL (no "solid" header; as binary STL the ${sizes})`,
      }
    : {
        kind: 'invalid',
        reason: `not an STL: binary size mismatch (header declares ${n} triangles = ${want} bytes, file has ${buf.length}) and no "solid" header`,
      };
}

/**
 * Parses an STL file. Throws `ArtifactInvalidError` for empty, truncated, corrupt or oversized files,
 * and `VerifierTimeoutError` past the time limit.
 */
export function parseStl(buf: Buffer, opts: ParseStlOptions = {}): TriangleSoup {
  const sniff = sniffStl(buf);
  if (sniff.kind === 'invalid') throw new ArtifactInvalidError(sniff.reason);
  const limit = deadline(opts.limitMs ?? 20_000, 'STL parse', opts.now);
  const max = opts.maxTriangles ?? 20_000_000;
  const soup =
    sniff.kind === 'binary' ? parseBinary(buf, sniff.triangles, max, limit) : parseAscii(buf, max, limit);
  if (soup.triangles === 0) throw new ArtifactInvalidError(`${soup.format} STL has no triangles`);
  return soup;
}

function parseBinary(buf: Buffer, n: number, max: number, limit: { check(): void }): TriangleSoup {
  if (n > max) throw new ArtifactInvalidError(`binary STL has ${n} triangles, more than the ${max} accepted`);
  const positions = new Float32Array(n * 9);
  for (let t = 0; t < n; t++) {
    if ((t & 0x3ff) === 0) limit.check();
    const base = HEADER + t * RECORD + 12; // skip the normal
    for (let k = 0; k < 9; k++) {
      const v = buf.readFloatLE(base + 4 * k);
      if (!Number.isFinite(v))
        throw new ArtifactInvalidError(`binary STL triangle ${t} has a non-finite coordinate`);
      positions[t * 9 + k] = v;
    }
  }
  return { format: 'binary', triangles: n, positions, header: printable(buf.subarray(0, 80)) };
}

const NUM = String.raw`([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)`;

function parseAscii(buf: Buffer, max: number, limit: { check(): void }): TriangleSoup {
  const text = buf.toString('latin1');
  if (!/\bendsolid\b/.test(text)) throw new ArtifactInvalidError('ASCII STL has no "endsolid" (truncated?)');
  const coords: number[] = [];
  const vertexRe = /\bvertex\b([^\n\r]*)/g;
  const triple = new RegExp(String.raw`^\s*${NUM}\s+${NUM}\s+${NUM}\s*$`);
  let m: RegExpExecArray | null;
  let count = 0;
  while ((m = vertexRe.exec(text)) !== null) {
    if ((count++ & 0x3ff) === 0) limit.check();
    const line = m[1] ?? '';
    const t = triple.exec(line);
    if (t === null)
      throw new ArtifactInvalidError(
        `ASCII STL has a malformed vertex line: "vertex${line.trim().slice(0, 60)}"`,
      );
    coords.push(Number(t[1]), Number(t[2]), Number(t[3]));
    if (count > max * 3)
      throw new ArtifactInvalidError(`ASCII STL has more than the ${max} triangles accepted`);
  }
  const facets = (text.match(/\bendfacet\b/g) ?? []).length;
  if (count !== facets * 3)
    throw new ArtifactInvalidError(
      `ASCII STL is inconsistent: ${count} vertices for ${facets} facets (need 3 each)`,
    );
  if (coords.some((v) => !Number.isFinite(v)))
    throw new ArtifactInvalidError('ASCII STL has a non-finite coordinate');
  const name = /^\s*solid\b([^\r\n]*)/i.exec(text)?.[1] ?? '';
  return {
    format: 'ascii',
    triangles: facets,
    positions: Float32Array.from(coords),
    header: printable(Buffer.from(name, 'latin1')),
  };
}

/** The printable ASCII of some bytes, runs of anything else as one space, trimmed. */
function printable(b: Buffer): string {
  return b
    .toString('latin1')
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim();
}
