/**
 * The sandbox interface: one container per sandbox, with an explicit lifecycle.
 *
 * Errors raised (all `SandboxError`, see `errors.ts`):
 * - `DOCKER_UNREACHABLE` (retryable): the engine does not answer (infra_error).
 * - `IMAGE_MISSING`: the image is not built; the message names `engiloop images build --only <name>`.
 * - `CONTAINER_GONE`: the container vanished or died under the episode (infra_error).
 * - `SANDBOX_IO`: copying files in or out failed.
 * A command that fails, times out or prints too much is NOT an error: it is a `CommandResult`.
 */
import type { CommandResult } from './result.js';
import type { FileOut } from './files.js';
import type { SnapshotOut } from './workspace.js';

export interface SandboxCreateOptions {
  /** Sandbox name within the task (e.g. `main`). */
  name: string;
  image: string;
  workdir: string;
  cpus: number;
  memoryMb: number;
  pids: number;
  /**
   * Everything the sandbox can write (workspace, /tmp, /dev/shm) adds up to at most this, enforced
   * by the kernel (see disk.ts). Default 2048.
   */
  diskMb?: number;
  /**
   * Regular expressions of command lines allowed to outlive the command that started them; every
   * other process a command leaves behind is killed before its result returns. `null`: keep every
   * process (desktop sandboxes). Default `[]`.
   */
  services?: readonly string[] | null;
  /** Labels for finding the container again (run id, episode id). */
  labels?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ExecOptions {
  /** Killed past this, with `timedOut: true` in the result. */
  timeoutMs: number;
  /** Bytes kept of each of stdout and stderr; past it `truncated: true`. */
  outputCapBytes: number;
  signal?: AbortSignal;
}

export interface Sandbox extends AsyncDisposable {
  readonly name: string;
  readonly containerId: string;
  readonly workdir: string;
  /** Runs a bash command in the workdir through the persistent shell. */
  exec(command: string, opts: ExecOptions): Promise<CommandResult>;
  /**
   * Which processes outlive the command that started them from the next command on: regular
   * expressions of command lines, or `null` for all (a desktop and its apps). See `services`.
   */
  setServices(services: readonly string[] | null): void;
  /** Writes files into the workspace (paths relative to the workdir). */
  putFiles(files: { dest: string; content: Buffer }[]): Promise<void>;
  /** Reads a file from the workspace; `null` when it does not exist or is not a regular file. At most 64 MiB. */
  getFile(path: string): Promise<Buffer | null>;
  /**
   * Reads a workspace file into memory, up to `capBytes` at its apparent size; refuses (as a
   * result) a missing file, a symlink or a path through one, a non-regular file, a bigger file.
   */
  readFile(path: string, capBytes: number): Promise<FileOut<Buffer>>;
  /** Streams a workspace file to the host file `dest`, as `readFile` refuses; the value is its SHA-256. */
  copyOut(path: string, dest: string, capBytes: number): Promise<FileOut<string>>;
  /** Streams the host file `hostPath` into the workspace as `dest`. */
  putFileFrom(dest: string, hostPath: string): Promise<void>;
  /**
   * Streams the writable state (workdir and /tmp) as a gzipped tar to the host file `dest`,
   * stopping past `capBytes`: what a resume restores. Processes and their memory are not in it
   * (see deploy/criu/FINDINGS.md).
   */
  snapshotTo(dest: string, capBytes: number): Promise<SnapshotOut>;
  /** Unpacks a `snapshotTo()` archive of a sandbox with the same image and workdir into this fresh one. */
  restore(tgz: Buffer): Promise<void>;
  /** Stops the shell and removes the container and its workspace volume. Idempotent. */
  close(): Promise<void>;
}
