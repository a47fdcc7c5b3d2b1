/**
 * Hand-offs between app sandboxes (multi-software tasks): an artifact leaves one sandbox as a
 * content-addressed object (SHA-256) in the object store and enters another. Sandboxes share no
 * filesystem, so what crosses is exactly what is recorded (`artifact.handed_off`).
 */
import type { ArtifactHandedOff } from '../../streams/index.js';
import type { CommandResult } from '../sandbox/index.js';
import type { Sandbox } from '../sandbox/index.js';
import type { Action } from '../../tasks/index.js';
import type { EffectScope } from './scope.js';
import { open, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { detectFormat } from '../../verifiers/index.js';
import { fileCapBytes } from './collect.js';

/** Bytes format sniffing reads of a handed-off file (the whole file up to this: some sniffers check the end). */
const SNIFF_BYTES = 64 * 1024 * 1024;

async function head(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const n = Math.min(SNIFF_BYTES, (await fh.stat()).size);
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

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
  // Streamed through a host file (capped, never through a symlink): memory stays flat.
  const tmp = join(s.opts.artifactsDir, '.handoff', `${process.pid}-${Date.now()}-${a.from}`);
  await mkdir(dirname(tmp), { recursive: true });
  let info: HandoffInfo;
  try {
    const out = await src.copyOut(a.path, tmp, fileCapBytes(s));
    if (!out.ok)
      return {
        result: {
          ...fail(
            out.refusal.kind === 'missing'
              ? `handoff: ${a.path} does not exist in sandbox ${a.from} (or is not a regular file)`
              : `handoff: ${out.refusal.message}`,
          ),
          ...(out.refusal.kind === 'too_large'
            ? { fault: { code: 'FILE_CAP' as const, message: out.refusal.message } }
            : {}),
        },
        info: null,
      };
    const digest = await s.deps.blobs.putFile(tmp, out.value);
    const dest = a.dest ?? a.path;
    await dst.putFileFrom(dest, tmp);
    info = {
      from: { sandbox: a.from, path: a.path },
      to: { sandbox: a.to, path: dest },
      digest,
      bytes: out.size,
      format: detectFormat(await head(tmp)),
      declared: (/\.([A-Za-z0-9_]+)$/.exec(a.path)?.[1] ?? '').toLowerCase(),
      producedAt: out.mtime || null,
    };
  } finally {
    await rm(tmp, { force: true });
  }
  const durationMs = Math.round(performance.now() - t0);
  return {
    result: {
      stdout: `handed off ${a.path} (${info.bytes} bytes, ${info.format}, sha256 ${info.digest.slice(0, 12)}) from ${a.from} to ${a.to}:${info.to.path}`,
      stderr: '',
      exitCode: 0,
      durationMs,
      truncated: false,
      timedOut: false,
    },
    info,
  };
}
