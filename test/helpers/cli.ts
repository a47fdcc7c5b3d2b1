/** Runs the real `engiloop` command (from sources, through tsx) as a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options for {@link cli}. */
export interface CliOptions {
  /** Killed past this (default 300 s). */
  timeoutMs?: number;
  /** Called with the child and all stderr so far, on each stderr chunk (e.g. to send a signal). */
  onStderr?: (child: ChildProcess, stderr: string) => void;
}

export function cli(
  args: string[],
  env: Record<string, string> = {},
  o: CliOptions = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'actors/cli/main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    p.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      o.onStderr?.(p, stderr);
    });
    const t = setTimeout(() => p.kill('SIGKILL'), o.timeoutMs ?? 300_000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}
