/**
 * Where `calculix.result` gets its results: a delivered `.frd`/`.dat`/`.sta` parsed in process, or
 * a fresh `ccx` solve of a delivered `.inp` (with the files it `*INCLUDE`s) in a tool container.
 * Re-solves are cached by content for the life of the process, so several criteria on one deck
 * solve it once.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { deliverablePath } from '../deliverable.js';
import { ArtifactInvalidError } from '../errors.js';
import type { VerifierContext } from '../types.js';
import { parseDat, parseSta, type DatFile, type StaIncrement } from './dat-parse.js';
import { parseFrd, type FrdFile } from './frd-parse.js';

/** The results at hand: any of the three files. */
export interface Sources {
  frd?: FrdFile;
  dat?: DatFile;
  sta?: StaIncrement[];
}

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

const JOB = 'engiloop_job';
const cache = new Map<string, Promise<{ sources: Sources } | { failure: string }>>();
const CACHE_SIZE = 8;

/**
 * Solves `inpPath` with ccx in a fresh container and parses what it wrote. Returns the parsed
 * results, or a failure naming ccx's error (the `*ERROR` lines of its output).
 */
export async function resolveInp(
  ctx: VerifierContext,
  inpPath: string,
  p: { image: string; timeout_sec: number; parse_timeout_sec: number },
): Promise<{ sources: Sources } | { failure: string }> {
  const deck = await readFile(inpPath, 'latin1');
  const includes = [...deck.matchAll(/^\s*\*INCLUDE\s*,\s*INPUT\s*=\s*"?([^"\r\n]+?)"?\s*$/gim)].map((m) =>
    m[1]!.trim(),
  );
  const files = [{ hostPath: inpPath, dest: `${JOB}.inp` }];
  const hash = createHash('sha256').update(p.image).update(deck);
  for (const inc of includes) {
    const rel = path.posix.normalize(
      path.posix.join(path.posix.dirname(path.relative(ctx.artifactsDir, inpPath)), inc),
    );
    const host = deliverablePath(ctx, rel);
    if (host === null || path.posix.isAbsolute(inc) || inc.includes('..'))
      return { failure: `*INCLUDE ${inc} points outside the delivered files` };
    const content = await readFile(host).catch(() => null);
    if (content === null) return { failure: `*INCLUDE ${inc} was not delivered` };
    hash.update(inc).update(content);
    files.push({ hostPath: host, dest: inc });
  }
  const key = hash.digest('hex');
  let job = cache.get(key);
  if (job === undefined) {
    job = solve(ctx, files, p);
    cache.set(key, job);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    // a failed run (time-out on a loaded host) must not stick
    job.catch(() => cache.delete(key));
  }
  return job;
}

async function solve(
  ctx: VerifierContext,
  files: { hostPath: string; dest: string }[],
  p: { image: string; timeout_sec: number; parse_timeout_sec: number },
): Promise<{ sources: Sources } | { failure: string }> {
  const res = await ctx.runTool(
    {
      image: p.image,
      command: `OMP_NUM_THREADS=1 ccx -i ${JOB} > ${JOB}.log 2>&1; echo "ccx exit $?"; grep -i -m5 -A2 'error' ${JOB}.log`,
      files,
      timeoutMs: p.timeout_sec * 1000,
      collect: [`${JOB}.frd`, `${JOB}.dat`, `${JOB}.sta`],
    },
    ctx.signal,
  );
  if (res.timedOut) return { failure: `ccx timed out after ${p.timeout_sec} s` };
  const errors = res.stdout
    .split('\n')
    .filter((l) => /error/i.test(l))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  const got = (n: string): Buffer | undefined => {
    const b = res.files[`${JOB}.${n}`];
    return b === undefined || b.length === 0 ? undefined : b;
  };
  const frd = got('frd');
  const dat = got('dat');
  const sta = got('sta');
  if (frd === undefined && dat === undefined)
    return {
      failure: `ccx wrote no results${errors ? `: ${errors.slice(0, 300)}` : ` (${res.stdout.trim().slice(0, 200)})`}`,
    };
  const limit = p.parse_timeout_sec * 1000;
  const sources: Sources = {};
  const problems: string[] = [];
  const attempt = (what: string, f: () => void): void => {
    try {
      f();
    } catch (err) {
      problems.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  if (frd) attempt('.frd', () => (sources.frd = parseFrd(frd.toString('latin1'), limit)));
  if (dat) attempt('.dat', () => (sources.dat = parseDat(dat.toString('latin1'), limit)));
  if (sta) attempt('.sta', () => (sources.sta = parseSta(sta.toString('latin1'))));
  if (sources.frd === undefined && sources.dat === undefined)
    return {
      failure: `ccx results unreadable (${problems.join('; ')})${errors ? `: ${errors.slice(0, 300)}` : ''}`,
    };
  return { sources };
}
