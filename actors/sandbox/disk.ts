/**
 * Kernel-enforced disk limits for sandbox workspaces: each workspace is its own small ext4
 * filesystem on a loop device, mounted by Docker as a local volume. A write past the size fails
 * inside the sandbox with `No space left on device`; the host only ever gives it what it holds.
 *
 * How: a sparse image file (`truncate`), `mkfs.ext4` (no journal, no reserved blocks, root owned by
 * uid 1000, `lost+found` removed so Docker copies the image's workdir in as for any volume),
 * `losetup`, then the image file is unlinked at once: the loop device holds the only reference,
 * so nothing is left on the host's disk once the device is detached, even after a crash. The volume
 * is mounted with `discard`, so deleting a file inside returns its blocks to the host.
 *
 * Needs root on the Docker host (losetup). XFS project quotas (Docker's own `size` option) were
 * tried first and are unavailable on this machine's kernel ("quota support not available").
 * `ENGILOOP_DISK_LIMIT=off` runs without limits (an agent can then fill the host's disk).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { statusOf, toSandboxError } from './docker-errors.js';
import { SandboxError } from './errors.js';
import { LABEL } from './hardening.js';
import { writeMeminfo } from './proc-files.js';

const run = promisify(execFile);

/** Where image files live for the moment between `truncate` and `losetup` (then unlinked). */
export const DISK_DIR = process.env.ENGILOOP_DISK_DIR ?? '/var/lib/engiloop/disks';

/** The limit mode: `loop` (default) or `off` (no limit; says so in every sandbox's labels). */
export function diskLimitMode(): 'loop' | 'off' {
  const v = (process.env.ENGILOOP_DISK_LIMIT ?? 'loop').toLowerCase();
  if (v === 'off' || v === '0' || v === 'false') return 'off';
  return 'loop';
}

/** How one sandbox's writable space is split: workspace volume, /tmp tmpfs, /dev/shm. In MiB. */
export interface DiskSplit {
  workspaceMb: number;
  tmpMb: number;
  shmMb: number;
}

/**
 * Splits `limits.disk_mb` so that everything a sandbox can write adds up to at most it: /tmp (also
 * HOME) gets a quarter up to 512 MiB, /dev/shm a sixteenth up to 64 MiB, the workspace the rest.
 * @example splitDisk(2048) // { workspaceMb: 1472, tmpMb: 512, shmMb: 64 }
 */
export function splitDisk(diskMb: number): DiskSplit {
  const tmpMb = Math.min(512, Math.max(8, Math.floor(diskMb / 4)));
  const shmMb = Math.min(64, Math.max(4, Math.floor(diskMb / 16)));
  return { workspaceMb: Math.max(16, diskMb - tmpMb - shmMb), tmpMb, shmMb };
}

/** A size-limited workspace volume; `release` removes the volume and detaches its loop device. */
export interface LimitedDisk {
  volume: string;
  device: string;
  /** Host file for the sandbox's /proc/meminfo (runc only; see proc-files.ts). */
  meminfo?: string;
  release(): Promise<void>;
}

async function sh(cmd: string, args: string[], doing: string): Promise<string> {
  try {
    return (await run(cmd, args, { timeout: 60_000 })).stdout;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    const why =
      e.code === 'ENOENT'
        ? `${cmd} is not installed (apt-get install e2fsprogs util-linux)`
        : (e.stderr ?? e.message).trim();
    throw new SandboxError('SANDBOX_IO', `disk limit: ${doing} failed: ${why}`, { cause: err });
  }
}

/** Detaches a loop device, ignoring one already gone. */
async function detach(device: string): Promise<void> {
  await run('losetup', ['-d', device]).catch(() => undefined);
}

/**
 * Makes a `mb`-MiB ext4 workspace volume named `engiloop-ws-<random>` carrying `labels` (so
 * orphan clean-up finds it). Throws `DISK_LIMIT_UNAVAILABLE` when not root.
 */
export async function createLimitedDisk(
  docker: Docker,
  mb: number,
  labels: Record<string, string>,
  memoryMb?: number,
): Promise<LimitedDisk> {
  if (process.getuid?.() !== 0)
    throw new SandboxError(
      'DISK_LIMIT_UNAVAILABLE',
      'Per-sandbox disk limits need root on the Docker host (losetup, mkfs.ext4). Fix: run engiloop as root, or set ENGILOOP_DISK_LIMIT=off to run without them (an agent can then fill the host disk)',
    );
  const name = `engiloop-ws-${randomBytes(6).toString('hex')}`;
  await mkdir(DISK_DIR, { recursive: true, mode: 0o700 });
  const image = join(DISK_DIR, `${name}.img`);
  let device = '';
  try {
    const fh = await open(image, 'wx', 0o600);
    await fh.truncate(mb * 1024 * 1024);
    await fh.close();
    await sh(
      'mkfs.ext4',
      [
        '-q',
        '-F',
        '-O',
        '^has_journal',
        '-m',
        '0',
        '-E',
        'root_owner=1000:1000,lazy_itable_init=1,nodiscard',
        image,
      ],
      'mkfs.ext4',
    );
    await sh('debugfs', ['-w', '-R', 'rmdir lost+found', image], 'removing lost+found');
    device = (await sh('losetup', ['-f', '--show', image], 'losetup')).trim();
  } finally {
    await rm(image, { force: true });
  }
  try {
    await docker.createVolume({
      Name: name,
      Driver: 'local',
      DriverOpts: { type: 'ext4', device, o: 'discard,nosuid,nodev' },
      Labels: { [LABEL]: '1', [`${LABEL}.pid`]: String(process.pid), [`${LABEL}.device`]: device, ...labels },
    });
  } catch (err) {
    await detach(device);
    throw toSandboxError(err, {
      docker,
      doing: `creating a ${mb} MiB workspace volume`,
      fallback: 'SANDBOX_IO',
    });
  }
  if (memoryMb !== undefined) await writeMeminfo(meminfoFile(name), memoryMb);
  let released: Promise<void> | undefined;
  return {
    volume: name,
    device,
    ...(memoryMb === undefined ? {} : { meminfo: meminfoFile(name) }),
    release: () => (released ??= removeLimitedDisk(docker, name, device)),
  };
}

/** Host file shown as the /proc/meminfo of the sandbox whose workspace is volume `name`. */
const meminfoFile = (name: string): string => join(DISK_DIR, `${name}.meminfo`);

/**
 * Removes a workspace volume (its container must be gone), detaches its loop device and removes
 * its meminfo file.
 */
export async function removeLimitedDisk(docker: Docker, volume: string, device: string): Promise<void> {
  await rm(meminfoFile(volume), { force: true });
  try {
    await docker.getVolume(volume).remove();
  } catch (err) {
    if (statusOf(err) !== 404) {
      await detach(device);
      throw toSandboxError(err, {
        docker,
        doing: `removing workspace volume ${volume}`,
        fallback: 'SANDBOX_IO',
      });
    }
  }
  await detach(device);
}
