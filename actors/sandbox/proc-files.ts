/**
 * Host figures a sandbox should not see. Docker masks a set of /proc paths; engiloop adds
 * /proc/cmdline (the host's boot line) and, with runc, replaces /proc/meminfo by a file stating the
 * sandbox's own memory limit (read-only, fixed: like lxcfs without its live figures), so `free`
 * and apps that size themselves by /proc/meminfo see the limit, not the host's memory. gVisor
 * (`ENGILOOP_RUNTIME=runsc`) shows both as its own already.
 */
import { writeFile } from 'node:fs/promises';

/** Docker's default masked paths (moby oci/defaults) plus the host's boot command line. */
export const MASKED_PATHS = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/proc/cmdline',
];

/**
 * A /proc/meminfo for a sandbox of `memoryMb` MiB with no swap.
 * @example meminfoText(512).split('\n')[0] // 'MemTotal:         524288 kB'
 */
function meminfoText(memoryMb: number): string {
  const kb = memoryMb * 1024;
  const rows: [string, number][] = [
    ['MemTotal', kb],
    ['MemFree', kb],
    ['MemAvailable', kb],
    ['Buffers', 0],
    ['Cached', 0],
    ['SwapCached', 0],
    ['Active', 0],
    ['Inactive', 0],
    ['SwapTotal', 0],
    ['SwapFree', 0],
    ['Shmem', 0],
    ['SReclaimable', 0],
  ];
  return rows.map(([k, v]) => `${`${k}:`.padEnd(16)}${String(v).padStart(8)} kB`).join('\n') + '\n';
}

/** Writes the meminfo file for a sandbox of `memoryMb` MiB at `path` (read-only). */
export async function writeMeminfo(path: string, memoryMb: number): Promise<void> {
  await writeFile(path, meminfoText(memoryMb), { mode: 0o444 });
}
