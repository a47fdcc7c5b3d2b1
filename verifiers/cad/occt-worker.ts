/**
 * The OCCT worker thread: loads `replicad-opencascadejs` once and answers requests to measure a
 * STEP or BREP file. It runs in a worker so that a parse that hangs or traps can be cut off by
 * terminating the thread (see `occt.ts`), which a synchronous wasm call on the main thread cannot.
 */
import { parentPort } from 'node:worker_threads';
import init, { type OpenCascadeInstance } from 'replicad-opencascadejs';
import { brepFacts, brepMesh, BrepReadError, readBrep, type BrepKind } from './occt-facts.js';

/** A request to the worker. */
export interface OcctRequest {
  id: number;
  kind: BrepKind;
  bytes: Uint8Array;
  /** When set, also mesh the shape with this linear deflection and return it as STL. */
  meshDeflection?: number;
}

/** The worker's answer. `invalid` marks a file OCCT could not read (not a fault of the worker). */
export type OcctResponse =
  | { id: number; ok: true; facts: ReturnType<typeof brepFacts>; mesh?: Uint8Array; log: string[] }
  | { id: number; ok: false; invalid: boolean; error: string; log: string[] };

let log: string[] = [];
let oc: Promise<OpenCascadeInstance> | undefined;

function occt(): Promise<OpenCascadeInstance> {
  oc ??= init({
    print: (s: string) => log.push(s),
    printErr: (s: string) => log.push(s),
  });
  return oc;
}

parentPort?.on('message', (req: OcctRequest) => {
  void handle(req).then((res) => parentPort?.postMessage(res));
});

async function handle(req: OcctRequest): Promise<OcctResponse> {
  log = [];
  try {
    const o = await occt();
    const shape = readBrep(o, req.kind, req.bytes, log);
    try {
      const facts = brepFacts(o, shape);
      const mesh = req.meshDeflection === undefined ? undefined : brepMesh(o, shape, req.meshDeflection).stl;
      return { id: req.id, ok: true, facts, ...(mesh === undefined ? {} : { mesh }), log: log.slice(-20) };
    } finally {
      shape.delete();
    }
  } catch (err) {
    // A wasm trap may leave OCCT's memory inconsistent: load a fresh instance next time.
    if (err instanceof Error && err.name === 'RuntimeError') oc = undefined;
    const invalid = err instanceof BrepReadError;
    const error = err instanceof Error ? err.message : describeThrown(err);
    return { id: req.id, ok: false, invalid, error, log: log.slice(-20) };
  }
}

/** OCCT throws C++ exceptions as numbers (pointers) through emscripten. */
function describeThrown(err: unknown): string {
  if (typeof err === 'number') return `OCCT raised a C++ exception (${err})`;
  return String(err);
}
