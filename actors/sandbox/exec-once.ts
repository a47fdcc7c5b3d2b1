/**
 * One fresh `docker exec`, run to completion. Used where a persistent shell cannot help: killing a
 * wedged shell's processes, and as the baseline in `bench/sandbox.ts`.
 */
import { Writable } from 'node:stream';
import type Docker from 'dockerode';

export interface ExecOnceResult {
  exitCode: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

/** Collects every chunk written to it. */
function sink(into: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, cb) {
      into.push(chunk);
      cb();
    },
  });
}

/**
 * Runs `cmd` in the running `container` as a new exec (create, start, wait for the output to end,
 * inspect the exit code). Throws dockerode's errors unchanged; callers map them.
 */
export async function execOnce(
  docker: Docker,
  container: Docker.Container,
  cmd: string[],
  opts: { user?: string; workdir?: string } = {},
): Promise<ExecOnceResult> {
  const exec = await container.exec({
    Cmd: cmd,
    AttachStdout: true,
    AttachStderr: true,
    // The container's own user is root (see hardening.ts): an exec is uid 1000 unless told otherwise.
    User: opts.user ?? '1000:1000',
    ...(opts.workdir === undefined ? {} : { WorkingDir: opts.workdir }),
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  docker.modem.demuxStream(stream, sink(out), sink(err));
  await new Promise<void>((resolve, reject) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', reject);
  });
  let info = await exec.inspect();
  // The output can close a moment before the engine records the exit code.
  for (let i = 0; info.Running && i < 50; i++) {
    await new Promise((r) => setTimeout(r, 2));
    info = await exec.inspect();
  }
  return { exitCode: info.ExitCode ?? null, stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
}
