/**
 * `RunTool` for verifiers: one command in a fresh, hardened, network-less container that is always
 * removed afterwards.
 */
import { readFile } from 'node:fs/promises';
import type { RunTool, ToolRequest, ToolResult } from '../../verifiers/index.js';
import type { DockerSandboxProvider } from './docker.js';
import { SandboxError } from './errors.js';
import { LABEL } from './hardening.js';

/** Limits of a tool container; every field has a default. */
export interface RunToolOptions {
  /** Default 1. */
  cpus?: number;
  /** Default 1024. */
  memoryMb?: number;
  /** Default 256. */
  pids?: number;
  /** Writable space of a tool container (see `SandboxCreateOptions.diskMb`). Default 2048. */
  diskMb?: number;
  /** Largest file brought back (`collect`); a bigger one is left out. Default 256 MiB. */
  collectCapBytes?: number;
  /** Bytes kept of each of stdout and stderr. Default 8 MiB: verifiers parse tool output. */
  outputCapBytes?: number;
  /** Extra labels on every tool container (run id, test label). */
  labels?: Record<string, string>;
}

const WORKDIR = '/workspace';

/**
 * Builds the `RunTool` verifiers are given. Each call creates a container of `req.image`, copies
 * `req.files` from the host into /workspace, runs `req.command` under `req.timeoutMs`, brings back
 * the `req.collect` files that exist, and removes the container whatever happened.
 *
 * Throws `SandboxError` for infrastructure faults (`IMAGE_MISSING`, `DOCKER_UNREACHABLE`, ...) and
 * `SANDBOX_IO` when a host file cannot be read; a failing or timed-out command is a result.
 *
 * @example
 * const runTool = createRunTool(new DockerSandboxProvider());
 * const r = await runTool({ image: 'engiloop/cli:latest', command: 'openscad -o out.stl in.scad',
 *   files: [{ hostPath: '/art/in.scad', dest: 'in.scad' }], timeoutMs: 60_000, collect: ['out.stl'] });
 */
export function createRunTool(provider: DockerSandboxProvider, options: RunToolOptions = {}): RunTool {
  const limits = {
    cpus: options.cpus ?? 1,
    memoryMb: options.memoryMb ?? 1024,
    pids: options.pids ?? 256,
    diskMb: options.diskMb ?? 2048,
  };
  const collectCap = options.collectCapBytes ?? 256 * 2 ** 20;
  const outputCapBytes = options.outputCapBytes ?? 8 * 1024 * 1024;
  return async (req: ToolRequest, signal?: AbortSignal): Promise<ToolResult> => {
    const files = await Promise.all(
      req.files.map(async (f) => {
        try {
          return { dest: f.dest, content: await readFile(f.hostPath) };
        } catch (err) {
          throw new SandboxError('SANDBOX_IO', `Cannot read tool input ${f.hostPath}`, { cause: err });
        }
      }),
    );
    const sandbox = await provider.create({
      name: 'tool',
      image: req.image,
      workdir: WORKDIR,
      ...limits,
      labels: { [`${LABEL}.role`]: 'tool', ...options.labels },
      ...(signal === undefined ? {} : { signal }),
    });
    try {
      await sandbox.putFiles(files);
      const r = await sandbox.exec(req.command, {
        timeoutMs: req.timeoutMs,
        outputCapBytes,
        ...(signal === undefined ? {} : { signal }),
      });
      const collected: Record<string, Buffer> = {};
      for (const path of req.collect ?? []) {
        const r = await sandbox.readFile(path, collectCap);
        if (r.ok) collected[path] = r.value;
      }
      return {
        stdout: r.stdout,
        stderr: r.stderr,
        exitCode: r.exitCode,
        timedOut: r.timedOut,
        files: collected,
      };
    } finally {
      await sandbox.close();
    }
  };
}
