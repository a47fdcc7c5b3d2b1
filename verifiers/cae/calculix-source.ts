/**
 * Where `calculix.result` gets its results: a delivered `.frd`/`.dat`/`.sta` parsed in process, and
 * a fresh `ccx` solve of the delivered deck (with the files it `*INCLUDE`s) in a tool container,
 * under a time limit. The solve's exit status comes back on a line named with the verification's
 * nonce, so nothing the deck makes ccx print (ccx echoes card images in its warnings) can pose as
 * it. Solves are cached by content for the life of the process, so several criteria on one deck
 * solve it once.
 */
import { createHash } from 'node:crypto';
import { ArtifactInvalidError } from '../errors.js';
import type { VerifierContext } from '../types.js';
import { parseDat, parseSta, type DatFile, type StaIncrement } from './dat-parse.js';
import type { LoadedDeck } from './deck-load.js';
import { parseFrd, type FrdFile } from './frd-parse.js';

/** The results at hand: any of the three files. */
export interface Sources {
  frd?: FrdFile;
  dat?: DatFile;
  sta?: StaIncrement[];
}

/** The result file extensions `calculix.result` reads. */
export const RESULT_EXTS = ['.frd', '.dat', '.sta'] as const;

/** Parses one delivered result file by its extension. */
export function loadSource(ext: string, bytes: Buffer, limitMs: number): Sources {
  const text = bytes.toString('latin1');
  if (text.includes('\u0000'))
    throw new ArtifactInvalidError(`binary content where a text ${ext} was expected`);
  switch (ext) {
    case '.frd':
      return { frd: parseFrd(text, limitMs) };
    case '.dat':
      return { dat: parseDat(text, limitMs) };
    case '.sta':
      return { sta: parseSta(text) };
    default:
      throw new ArtifactInvalidError(
        `${ext || 'no extension'}: not a CalculiX result file (.frd, .dat or .sta)`,
      );
  }
}

/** A fresh solve. */
export interface Solve {
  /** ccx's exit status (0 on success; 201 on a fatal input or solver error); null when unknown. */
  exitCode: number | null;
  timedOut: boolean;
  /** ccx's `*ERROR` messages, first ones first (blanks squeezed). */
  errors: string[];
  sources: Sources;
  /** Result files ccx wrote that could not be read (e.g. a `.frd` cut short by a failed step). */
  unreadable: string[];
}

/** What a solve needs from the params. */
export interface SolveParams {
  image: string;
  timeout_sec: number;
  parse_timeout_sec: number;
}

const cache = new Map<string, Promise<Solve>>();
const CACHE_SIZE = 8;

/** Solves `deck` with ccx in a fresh container (or returns the cached solve of the same files). */
export function solveDeck(
  ctx: VerifierContext,
  deck: LoadedDeck,
  p: SolveParams,
  nonce: string,
): Promise<Solve> {
  const hash = createHash('sha256').update(p.image);
  // the deck's own name does not matter (it runs as the job), its includes' paths do
  deck.files.forEach((f, i) =>
    hash
      .update(i === 0 ? '' : f.dest)
      .update('\0')
      .update(f.bytes)
      .update('\0'),
  );
  const key = hash.digest('hex');
  let job = cache.get(key);
  if (job === undefined) {
    job = run(ctx, deck, p, nonce);
    cache.set(key, job);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    // a failed run (a time-out on a loaded host, an infrastructure fault) must not stick
    job.then(
      (s) => s.timedOut && cache.delete(key),
      () => cache.delete(key),
    );
  }
  return job;
}

async function run(ctx: VerifierContext, deck: LoadedDeck, p: SolveParams, nonce: string): Promise<Solve> {
  const job = `job_${nonce}`;
  const marker = `engiloop-ccx-${nonce}`;
  const files = deck.files.map((f, i) => ({ hostPath: f.hostPath, dest: i === 0 ? `${job}.inp` : f.dest }));
  const res = await ctx.runTool(
    {
      image: p.image,
      // ccx's own output goes to a file; stdout carries only the nonce'd exit line
      command: [
        `OMP_NUM_THREADS=1 ccx -i ${job} > ${job}.log 2>&1; echo "${marker} exit=$?"`,
        `grep -a -A2 '\\*ERROR' ${job}.log | cut -c1-200 | head -n 24 > ${job}.err`,
      ].join('; '),
      files,
      timeoutMs: p.timeout_sec * 1000,
      collect: [`${job}.frd`, `${job}.dat`, `${job}.sta`, `${job}.err`],
    },
    ctx.signal,
  );
  const m = new RegExp(`^${marker} exit=(\\d+)$`, 'm').exec(res.stdout);
  const errors = errorMessages(res.files[`${job}.err`]?.toString('latin1') ?? '');
  const limit = p.parse_timeout_sec * 1000;
  const sources: Sources = {};
  const unreadable: string[] = [];
  const read = (ext: 'frd' | 'dat' | 'sta', f: (t: string) => void): void => {
    const b = res.files[`${job}.${ext}`];
    if (b === undefined || b.length === 0) return;
    try {
      f(b.toString('latin1'));
    } catch (err) {
      unreadable.push(`.${ext}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  read('frd', (t) => (sources.frd = parseFrd(t, limit)));
  read('dat', (t) => (sources.dat = parseDat(t, limit)));
  read('sta', (t) => (sources.sta = parseSta(t)));
  return { exitCode: m === null ? null : Number(m[1]), timedOut: res.timedOut, errors, sources, unreadable };
}

/** ccx's `*ERROR` messages from `grep -A2` output: each with its indented continuation lines. */
function errorMessages(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*\*ERROR/.test(line)) out.push(line.trim());
    else if (out.length > 0 && /^ {5,}\S/.test(line)) out[out.length - 1] += ` ${line.trim()}`;
  }
  return [...new Set(out.map((e) => e.replace(/\s+/g, ' ')))];
}

/** One phrase for a solve that did not succeed: `ccx exit 201: *ERROR in nonlingeo: …`. */
export function solveFailure(s: Solve, timeoutSec: number): string | null {
  if (s.timedOut) return `ccx did not finish within ${timeoutSec} s`;
  if (s.exitCode === 0) return null;
  const why =
    s.errors.slice(0, 2).join(' ') || (s.exitCode === null ? 'no exit status' : 'no *ERROR message');
  return `ccx exit ${s.exitCode ?? '?'}: ${why.slice(0, 300)}`;
}
