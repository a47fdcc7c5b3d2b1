/**
 * Hand-offs between app sandboxes (multi-software tasks): an artifact leaves one sandbox as a
 * content-addressed object (SHA-256) in the object store and enters another. Sandboxes share no
 * filesystem, so what crosses is exactly what is recorded (`artifact.handed_off`).
 */
import type { ArtifactHandedOff, CommandResult } from '../../streams/events.js';
import type { Sandbox } from '../sandbox/types.js';
import type { Action } from '../../tasks/index.js';
import type { EffectScope } from './effects.js';
import { detectFormat } from '../../verifiers/index.js';

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
