/**
 * Measuring STEP/BREP files with OCCT, off the main thread. One worker (`occt-worker.ts`) holds the
 * wasm module, loaded once (~1 s) and reused; requests run one at a time. A request past its time
 * limit terminates the worker (the next request starts a new one), so a parse that never returns
 * costs a time-out, not a hung process. Results are cached by file hash.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ArtifactInvalidError, VerifierError, VerifierTimeoutError } from '../errors.js';
import type { BrepFacts, BrepKind } from './occt-facts.js';
import type { OcctRequest, OcctResponse } from './occt-worker.js';

export type { BrepFacts, BrepKind } from './occt-facts.js';

/** Options of `measureBrep`. */
export interface MeasureBrepOptions {
  /** Time limit of the read and measurement, in ms (including OCCT's start on first use). Default 30 000. */
  limitMs?: number;
  /** Also return a binary/ASCII STL mesh of the shape, with this linear deflection (model units). */
  meshDeflection?: number;
}

/** What `measureBrep` returns. */
export interface BrepMeasurement {
  facts: BrepFacts;
  /** STL bytes of the meshed shape, when asked for. */
  mesh?: Buffer;
}

let worker: Worker | undefined;
let nextId = 1;
let queue: Promise<unknown> = Promise.resolve();
const cache = new Map<string, Promise<BrepMeasurement>>();
const CACHE_SIZE = 16;

/**
 * Reads a STEP or BREP file with OCCT and measures it. Rejects with `ArtifactInvalidError` when OCCT
 * cannot read the file, `VerifierTimeoutError` past the limit, `VerifierError` if the worker dies.
 *
 * @example const { facts } = await measureBrep(bytes, 'step'); facts.volume
 */
export function measureBrep(
  bytes: Uint8Array,
  kind: BrepKind,
  opts: MeasureBrepOptions = {},
): Promise<BrepMeasurement> {
  const key = `${kind}:${opts.meshDeflection ?? '-'}:${createHash('sha256').update(bytes).digest('hex')}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const run = queue.then(() => request(bytes, kind, opts));
  queue = run.catch(() => undefined);
  cache.set(key, run);
  run.catch(() => cache.delete(key));
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return run;
}

/** Terminates the OCCT worker, if one runs (tests and benchmarks call this to exit promptly). */
export async function stopOcct(): Promise<void> {
  const w = worker;
  worker = undefined;
  await w?.terminate();
}

function spawn(): Worker {
  const opts = { stdout: true, stderr: true } as const;
  // Under tsx or vitest this module is TypeScript, and node cannot start a .ts worker by itself:
  // a small bootstrap registers tsx's loader in the worker first. Built code starts the .js twin.
  const w = import.meta.url.endsWith('.ts')
    ? new Worker(
        `(async () => {
          const { register } = await import(${JSON.stringify(tsxApi())});
          register();
          await import(${JSON.stringify(new URL('./occt-worker.ts', import.meta.url).href)});
        })()`,
        { ...opts, eval: true },
      )
    : new Worker(new URL('./occt-worker.js', import.meta.url), opts);
  w.unref();
  w.on('exit', () => {
    if (worker === w) worker = undefined;
  });
  return w;
}

/** File URL of tsx's ESM API (its `require` entry cannot register ESM hooks). */
function tsxApi(): string {
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  return pathToFileURL(path.join(path.dirname(pkg), 'dist/esm/api/index.mjs')).href;
}

function request(bytes: Uint8Array, kind: BrepKind, opts: MeasureBrepOptions): Promise<BrepMeasurement> {
  const limitMs = opts.limitMs ?? 30_000;
  const w = (worker ??= spawn());
  const id = nextId++;
  const req: OcctRequest = {
    id,
    kind,
    bytes: new Uint8Array(bytes),
    ...(opts.meshDeflection === undefined ? {} : { meshDeflection: opts.meshDeflection }),
  };
  return new Promise<BrepMeasurement>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      w.off('message', onMessage);
      w.off('error', onError);
      w.off('exit', onExit);
      w.unref();
    };
    const onMessage = (res: OcctResponse): void => {
      if (res.id !== id) return;
      done();
      if (res.ok)
        resolve({ facts: res.facts, ...(res.mesh === undefined ? {} : { mesh: Buffer.from(res.mesh) }) });
      else if (res.invalid) reject(new ArtifactInvalidError(res.error));
      else reject(new ArtifactInvalidError(`OCCT failed on the file: ${res.error}`));
    };
    const onError = (err: Error): void => {
      done();
      if (worker === w) worker = undefined;
      reject(new VerifierError('ARTIFACT_INVALID', `OCCT worker crashed: ${err.message}`, { cause: err }));
    };
    const onExit = (code: number): void => {
      done();
      reject(new VerifierError('ARTIFACT_INVALID', `OCCT worker exited (code ${code})`));
    };
    const timer = setTimeout(() => {
      done();
      if (worker === w) worker = undefined;
      void w.terminate();
      reject(new VerifierTimeoutError('OCCT', limitMs));
    }, limitMs);
    w.on('message', onMessage);
    w.on('error', onError);
    w.on('exit', onExit);
    w.ref();
    w.postMessage(req, [req.bytes.buffer as ArrayBuffer]);
  });
}
