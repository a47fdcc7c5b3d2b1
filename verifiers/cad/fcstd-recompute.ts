/**
 * Reopening a delivered FreeCAD document in FreeCAD itself (a fresh engiloop/freecad container),
 * recomputing every object, and exporting the recomputed shape of one object as BREP. The shape a
 * document stores is only a cache of what its features compute: a document whose stored BREP was
 * swapped for another solid, or left stale, shows it here.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { VerifierContext } from '../types.js';

/** Tool image with FreeCAD 0.20. */
export const FREECAD_IMAGE = 'engiloop/freecad:latest';

/** What a recompute gave: the object's recomputed shape (BREP text), or a readable failure. */
export type Recompute =
  | { ok: true; brep: Buffer; invalid: { name: string; label: string; state: string[] }[] }
  | { ok: false; reason: string };

const DOC = 'engiloop_doc.FCStd';
const OUT = 'engiloop_recomputed.brep';

/** The script: open, touch every object, recompute, export the shape, print the result between markers. */
const script = (marker: string): string => `
import json
import FreeCAD as App
args = json.load(open("/workspace/engiloop_args.json"))
res = {}
try:
    doc = App.openDocument("/workspace/${DOC}")
    for o in doc.Objects:
        o.touch()
    doc.recompute()
    res["invalid"] = [{"name": o.Name, "label": o.Label, "state": [str(s) for s in o.State]} for o in doc.Objects if not o.isValid()]
    o = doc.getObject(args["object"])
    if o is None:
        res["error"] = "FreeCAD finds no object " + args["object"]
    elif not hasattr(o, "Shape") or o.Shape.isNull():
        res["error"] = "after the recompute " + o.Label + " has no shape"
    else:
        o.Shape.exportBrep("/workspace/${OUT}")
        res["ok"] = True
except Exception as e:
    res["error"] = "FreeCAD could not reopen and recompute the document: " + str(e)[:300]
print("\\n${marker}" + json.dumps(res) + "${marker}")
`;

const cache = new Map<string, Promise<Recompute>>();
const CACHE_SIZE = 16;

/**
 * Recomputes `object` (an internal name) of the FCStd at `hostPath`. Results are cached by file
 * hash and object. `marker` names the result line (a per-verification nonce, so the document cannot
 * print a result of its own).
 */
export function recomputeFcstd(
  ctx: Pick<VerifierContext, 'runTool' | 'signal'>,
  hostPath: string,
  bytes: Buffer,
  object: string,
  o: { image: string; timeoutMs: number; marker: string },
): Promise<Recompute> {
  const key = `${o.image}:${object}:${createHash('sha256').update(bytes).digest('hex')}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const run = recompute(ctx, hostPath, object, o);
  cache.set(key, run);
  // A failed run (a busy host, a lost container) is not kept: the next verification tries again.
  run.then((r) => !r.ok && cache.delete(key)).catch(() => cache.delete(key));
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return run;
}

async function recompute(
  ctx: Pick<VerifierContext, 'runTool' | 'signal'>,
  hostPath: string,
  object: string,
  o: { image: string; timeoutMs: number; marker: string },
): Promise<Recompute> {
  const dir = await mkdtemp(path.join(tmpdir(), 'engiloop-fcstd-'));
  try {
    const marker = `ENGILOOP_RESULT_${o.marker}`;
    await writeFile(path.join(dir, 'recompute.py'), script(marker));
    await writeFile(path.join(dir, 'args.json'), JSON.stringify({ object }));
    const res = await ctx.runTool(
      {
        image: o.image,
        command: 'freecadcmd engiloop_recompute.py',
        files: [
          { hostPath: path.join(dir, 'recompute.py'), dest: 'engiloop_recompute.py' },
          { hostPath: path.join(dir, 'args.json'), dest: 'engiloop_args.json' },
          { hostPath, dest: DOC },
        ],
        timeoutMs: o.timeoutMs,
        collect: [OUT],
      },
      ctx.signal,
    );
    if (res.timedOut)
      return { ok: false, reason: `FreeCAD's recompute timed out after ${o.timeoutMs / 1000} s` };
    const parts = res.stdout.split(marker);
    if (parts.length < 3) {
      const tail = `${res.stderr}\n${res.stdout}`.trim().split('\n').slice(-3).join(' | ').slice(0, 300);
      return { ok: false, reason: `FreeCAD printed no result (exit ${res.exitCode}): ${tail}` };
    }
    const r = JSON.parse(parts.at(-2)!) as {
      ok?: boolean;
      error?: string;
      invalid?: { name: string; label: string; state: string[] }[];
    };
    if (r.error !== undefined) return { ok: false, reason: r.error };
    const brep = res.files[OUT];
    if (r.ok !== true || brep === undefined)
      return { ok: false, reason: 'FreeCAD exported no recomputed shape' };
    return { ok: true, brep, invalid: r.invalid ?? [] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
