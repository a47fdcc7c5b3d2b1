/**
 * STL → mesh facts, with the weld fallback and a small cache so that several criteria on one file
 * parse it once.
 */
import { createHash } from 'node:crypto';
import { meshFacts, type MeshFacts } from './manifold.js';
import { parseStl, type ParseStlOptions } from './stl-parse.js';
import { weld, type WeldMode } from './weld.js';

/** Facts about an STL file, with how it was read. */
export type StlAnalysis = MeshFacts & {
  format: 'binary' | 'ascii';
  weld: WeldMode;
  degenerate: number;
  /** The binary header or ASCII solid name (see `TriangleSoup.header`): not evidence. */
  header: string;
};

const cache = new Map<string, Promise<StlAnalysis>>();
const CACHE_SIZE = 8;

/**
 * Parses, welds (exact first, then quantised if exact welding leaves it non-manifold) and measures
 * an STL. Rejects with `ArtifactInvalidError` for a corrupt file and `VerifierTimeoutError` past
 * the parse limit; a non-manifold mesh is a result (`manifold: false`), not an error.
 */
export function analyzeStl(bytes: Buffer, opts: ParseStlOptions = {}): Promise<StlAnalysis> {
  const key = createHash('sha256').update(bytes).digest('hex');
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const p = run(bytes, opts);
  cache.set(key, p);
  p.catch(() => cache.delete(key));
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return p;
}

async function run(bytes: Buffer, opts: ParseStlOptions): Promise<StlAnalysis> {
  const soup = parseStl(bytes, opts);
  const exact = weld(soup, 'exact');
  const first = await meshFacts(exact);
  const header = soup.header;
  if (first.manifold)
    return { ...first, format: soup.format, weld: 'exact', degenerate: exact.degenerate, header };
  const q = weld(soup, 'quantized');
  const second = await meshFacts(q);
  return second.manifold
    ? { ...second, format: soup.format, weld: 'quantized', degenerate: q.degenerate, header }
    : { ...first, format: soup.format, weld: 'exact', degenerate: exact.degenerate, header };
}
