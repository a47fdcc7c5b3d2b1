/**
 * A `Sandbox` backed by one hardened container and its persistent shell.
 */
import type Docker from 'dockerode';
import type { CommandResult } from './result.js';
import { asyncDispose } from '../../core/index.js';
import { statusOf, toSandboxError } from './docker-errors.js';
import {
  copyFileOut,
  getFile,
  putFileFrom,
  putFiles,
  readFileOut,
  type FileOut,
  type FilesHost,
} from './files.js';
import type { LimitedDisk } from './disk.js';
import type { PersistentShell } from './shell.js';
import type { ExecOptions, Sandbox } from './types.js';
import { restoreWorkspace, snapshotWorkspaceTo, type SnapshotOut } from './workspace.js';

/** Made by `DockerSandboxProvider.create`; see `Sandbox` for the contract and errors. */
export class DockerSandbox implements Sandbox {
  private closing: Promise<void> | undefined;
  private readonly host: FilesHost;

  constructor(
    readonly name: string,
    readonly workdir: string,
    private readonly docker: Docker,
    private readonly container: Docker.Container,
    private readonly shell: PersistentShell,
    private readonly disk?: LimitedDisk,
  ) {
    this.host = { docker, container, workdir };
  }

  get containerId(): string {
    return this.container.id;
  }

  exec(command: string, opts: ExecOptions): Promise<CommandResult> {
    return this.shell.run(command, opts);
  }

  setServices(services: readonly string[] | null): void {
    this.shell.setServices(services);
  }

  putFiles(files: { dest: string; content: Buffer }[]): Promise<void> {
    return putFiles(this.host, files);
  }

  getFile(path: string): Promise<Buffer | null> {
    return getFile(this.host, path);
  }

  readFile(path: string, capBytes: number): Promise<FileOut<Buffer>> {
    return readFileOut(this.host, path, capBytes);
  }

  copyOut(path: string, dest: string, capBytes: number): Promise<FileOut<string>> {
    return copyFileOut(this.host, path, dest, capBytes);
  }

  putFileFrom(dest: string, hostPath: string): Promise<void> {
    return putFileFrom(this.host, dest, hostPath);
  }

  snapshotTo(dest: string, capBytes: number): Promise<SnapshotOut> {
    return snapshotWorkspaceTo(this.host, dest, capBytes);
  }

  restore(tgz: Buffer): Promise<void> {
    return restoreWorkspace(this.host, tgz);
  }

  close(): Promise<void> {
    this.closing ??= this.removeContainer();
    return this.closing;
  }

  [asyncDispose](): Promise<void> {
    return this.close();
  }

  private async removeContainer(): Promise<void> {
    this.shell.close();
    try {
      await this.container.remove({ force: true, v: true });
    } catch (err) {
      // Already gone (404) or already being removed (409): the goal is reached.
      const s = statusOf(err);
      if (s !== 404 && s !== 409)
        throw toSandboxError(err, {
          docker: this.docker,
          doing: `removing sandbox ${this.name}`,
          fallback: 'SANDBOX_IO',
        });
    }
    await this.disk?.release();
  }
}
