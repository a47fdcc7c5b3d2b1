/**
 * Hand-offs between app sandboxes (multi-software tasks): an artifact leaves one sandbox as a
 * content-addressed object (SHA-256) in the object store and enters another. Sandboxes share no
 * filesystem, so what crosses is exactly what is recorded (`artifact.handed_off`).
 */
import type { ArtifactHandedOff, CommandResult } from '../../streams/events.js';
import type { Sandbox } from '../sandbox/types.js';
import type { Action } from '../../tasks/index.js';
import type { EffectScope } from './effects.js';

type Handoff = Extract<Action, { type: 'handoff' }>;

/** What one hand-off moved: the facts of its `artifact.handed_off` event. */
export type HandoffInfo = Omit<ArtifactHandedOff, 'type' | 'v' | 'at' | 'round' | 'index' | 'durationMs'>;

/** A file's size and modification time (seconds since the epoch, ms precision) in a sandbox; null if unreadable. */
export async function fileStat(sb: Sandbox, path: string): Promise<{ size: number; mtime: number } | null> {
  const r = await sb.exec(`stat -c '%s %.3Y' -- '${path.replaceAll("'", `'\\''`)}'`, {
    timeoutMs: 10_000,
    outputCapBytes: 256,
  });
  const [size, mtime] = r.stdout.trim().split(' ').map(Number);
  return r.exitCode === 0 && Number.isFinite(size) && Number.isFinite(mtime)
    ? { size: size!, mtime: mtime! }
    : null;
}

const head = (b: Buffer, n = 4096) => b.subarray(0, n).toString('latin1');

/** The format of an artifact by its content (light checks; the verifiers reopen it for real). */
export function detectFormat(b: Buffer): string {
  const h = head(b);
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return 'png';
  if (h.startsWith('ISO-10303-21')) return /FILE_SCHEMA\s*\(\s*\(\s*'IFC/i.test(h) ? 'ifc' : 'step';
  if (h.startsWith('PK\x03\x04')) return h.includes('Document.xml') ? 'fcstd' : 'zip';
  if (h.startsWith('glTF')) return 'glb';
  if (h.startsWith('BLENDER')) return 'blend';
  if (h.startsWith('$MeshFormat')) return 'msh';
  if (/^\s*\(kicad_pcb/.test(h)) return 'kicad_pcb';
  if (/^\s*\(kicad_sch/.test(h)) return 'kicad_sch';
  if (/^\s*\(export\s/.test(h)) return 'kicad_net';
  if (/^\s*solid[\s\S]*facet/i.test(h)) return 'stl';
  if (b.length >= 84 && b.length === 84 + 50 * b.readUInt32LE(80)) return 'stl';
  if (/^\s*0\s*\r?\n\s*SECTION/.test(h)) return 'dxf';
  if (/^\s*\{[\s\S]*"asset"/.test(h)) return 'gltf';
  if (/^\*(HEADING|NODE)/im.test(h)) return 'inp';
  if (/^\s*1C/m.test(h) && /^\s*2C/m.test(b.toString('latin1'))) return 'frd';
  if (/^\s*(module|`timescale)\b/m.test(h)) return 'verilog';
  if (/^\s*\.(end|tran|ac|op)\b/im.test(b.toString('latin1'))) return 'spice';
  if (/^[GM]\d+[\s\S]*^G[01]\s/m.test(h)) return 'gcode';
  // Anything else printable is text of no known format (a script, a log): `text`, not `unknown`.
  return /^[\x09\x0a\x0d\x20-\x7e\x80-\xff]*$/.test(h) && b.length > 0 ? 'text' : 'unknown';
}

const fail = (message: string): CommandResult => ({
  stdout: '',
  stderr: message,
  exitCode: 1,
  durationMs: 0,
  truncated: false,
  timedOut: false,
});

/** Copies `a.path` from sandbox `a.from` into `a.to`; a missing file or sandbox is a result, not an error. */
export async function handoff(
  s: EffectScope,
  a: Handoff,
): Promise<{ result: CommandResult; info: HandoffInfo | null }> {
  const t0 = performance.now();
  const have = [...s.sandboxes.keys()].join(', ');
  const src = s.sandboxes.get(a.from);
  const dst = s.sandboxes.get(a.to);
  if (!src || !dst)
    return {
      result: fail(`handoff: no sandbox named "${!src ? a.from : a.to}" (have: ${have})`),
      info: null,
    };
  if (a.from === a.to) return { result: fail('handoff: "from" and "to" are the same sandbox'), info: null };
  const bytes = await src.getFile(a.path);
  if (bytes === null)
    return {
      result: fail(`handoff: ${a.path} does not exist in sandbox ${a.from} (or is not a regular file)`),
      info: null,
    };
  const mtime = (await fileStat(src, a.path))?.mtime ?? null;
  const digest = await s.deps.blobs.put(bytes);
  const dest = a.dest ?? a.path;
  await dst.putFiles([{ dest, content: bytes }]);
  const info: HandoffInfo = {
    from: { sandbox: a.from, path: a.path },
    to: { sandbox: a.to, path: dest },
    digest,
    bytes: bytes.length,
    format: detectFormat(bytes),
    declared: (/\.([A-Za-z0-9_]+)$/.exec(a.path)?.[1] ?? '').toLowerCase(),
    producedAt: mtime === null ? null : Math.round(mtime * 1000),
  };
  const durationMs = Math.round(performance.now() - t0);
  return {
    result: {
      stdout: `handed off ${a.path} (${bytes.length} bytes, ${info.format}, sha256 ${digest.slice(0, 12)}) from ${a.from} to ${a.to}:${dest}`,
      stderr: '',
      exitCode: 0,
      durationMs,
      truncated: false,
      timedOut: false,
    },
    info,
  };
}
