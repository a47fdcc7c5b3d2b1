/** Sandbox lifecycle, hardening, files and errors, against the real engine and engiloop/cli:latest. */
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DockerSandboxProvider,
  HOST_LABEL,
  LABEL,
  PID_LABEL,
  hardenedContainerOptions,
  isDockerUnreachable,
  isImageMissing,
  isSandboxIo,
  type Sandbox,
} from '../../actors/sandbox/index.js';
import {
  CLI_IMAGE,
  inspectStatus,
  labelledContainers,
  removeLabelled,
  sandboxOptions,
  uniqueTestLabels,
} from '../helpers/docker.js';
import { hostname } from 'node:os';

const docker = new Docker();
const provider = new DockerSandboxProvider({ docker });
const labels = uniqueTestLabels('sandbox');
const run = { timeoutMs: 10_000, outputCapBytes: 65_536 };
let sb: Sandbox;

beforeAll(async () => {
  await provider.ping();
  sb = await provider.create(sandboxOptions(labels));
});

afterAll(async () => {
  await sb?.close();
  const left = await labelledContainers(docker, labels);
  await removeLabelled(docker, labels);
  expect(left).toEqual([]);
});

describe('hardening', () => {
  it('runs as uid 1000 in the workdir', async () => {
    const r = await sb.exec('id -u; id -g; pwd', run);
    expect(r.stdout).toBe('1000\n1000\n/workspace\n');
  });

  it('has a read-only root but a writable /workspace and /tmp', async () => {
    const etc = await sb.exec('touch /etc/engiloop', run);
    expect(etc.exitCode).not.toBe(0);
    expect(etc.stderr).toMatch(/Read-only file system/);
    const ok = await sb.exec('touch /workspace/w /tmp/t && echo ok', run);
    expect(ok.stdout).toBe('ok\n');
  });

  it('has no network interface but lo', async () => {
    const r = await sb.exec('tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "', run);
    expect(r.stdout.trim().split('\n')).toEqual(['lo']);
  });

  it('has no effective capabilities', async () => {
    const r = await sb.exec('grep CapEff /proc/self/status', run);
    expect(r.stdout).toMatch(/^CapEff:\s+0{16}$/m);
  });

  it('carries the engiloop, pid and host labels and the limits', async () => {
    const info = await docker.getContainer(sb.containerId).inspect();
    expect(info.Config.Labels).toMatchObject({
      [LABEL]: '1',
      [PID_LABEL]: String(process.pid),
      [HOST_LABEL]: hostname(),
      ...labels,
    });
    expect(info.HostConfig.NetworkMode).toBe('none');
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    expect(info.HostConfig.PidsLimit).toBe(256);
    expect(info.HostConfig.Memory).toBe(512 * 1024 * 1024);
  });
});

describe('python', () => {
  it('runs a rewritten module, never a stale cached .pyc of the same size and second', async () => {
    // Without PYTHONDONTWRITEBYTECODE the second import reuses the first one's bytecode.
    const r = await sb.exec(
      'cd /tmp && echo "print(40)" > m.py && python3 -c "import m" && echo "print(25)" > m.py && python3 -c "import m"; ls __pycache__ 2>&1 | head -1',
      run,
    );
    expect(r.stdout.split('\n').slice(0, 2)).toEqual(['40', '25']);
    expect(r.stdout).toMatch(/No such file or directory|cannot access/);
  });
});

describe('files', () => {
  it('round-trips a file with parent dirs, owned by uid 1000', async () => {
    const content = Buffer.from('größe ✓\n\x00binary\xff', 'latin1');
    await sb.putFiles([
      { dest: 'deep/er/file.bin', content },
      { dest: './top.txt', content: Buffer.from('top') },
    ]);
    expect(await sb.getFile('deep/er/file.bin')).toEqual(content);
    expect((await sb.getFile('top.txt'))?.toString()).toBe('top');
    const r = await sb.exec('stat -c %u:%g deep deep/er deep/er/file.bin top.txt', run);
    expect(r.stdout).toBe('1000:1000\n'.repeat(4));
  });

  it('reads a file written by a command', async () => {
    await sb.exec('printf "made inside" > made.txt', run);
    expect((await sb.getFile('made.txt'))?.toString()).toBe('made inside');
  });

  it('returns null for a missing file, a directory and a symlink', async () => {
    await sb.exec('mkdir -p adir && ln -sf /etc/passwd link', run);
    expect(await sb.getFile('missing.txt')).toBeNull();
    expect(await sb.getFile('adir')).toBeNull();
    expect(await sb.getFile('link')).toBeNull();
  });

  it('refuses absolute paths and ..', async () => {
    const content = Buffer.from('x');
    for (const dest of ['/etc/x', '../x', 'a/../../x', '']) {
      await expect(sb.putFiles([{ dest, content }])).rejects.toSatisfy(isSandboxIo);
    }
    await expect(sb.getFile('/etc/passwd')).rejects.toSatisfy(isSandboxIo);
    await expect(sb.getFile('a/../b')).rejects.toSatisfy(isSandboxIo);
  });
});

describe('lifecycle', () => {
  it('close removes the container and is idempotent', async () => {
    const own = await provider.create(sandboxOptions(labels, { name: 'closing' }));
    expect(await inspectStatus(docker, own.containerId)).toBe(200);
    await Promise.all([own.close(), own.close()]);
    await own.close();
    expect(await inspectStatus(docker, own.containerId)).toBe(404);
  });

  it('disposes with await using', async () => {
    let id = '';
    {
      await using own = await provider.create(sandboxOptions(labels, { name: 'disposed' }));
      id = own.containerId;
      expect((await own.exec('echo in', run)).stdout).toBe('in\n');
    }
    expect(await inspectStatus(docker, id)).toBe(404);
  });

  it('removeOrphans removes containers of dead pids only, and its own only when asked', async () => {
    const orphanLabels = { ...uniqueTestLabels('orphans') };
    const make = async (pid: string): Promise<string> => {
      const opts = hardenedContainerOptions({
        image: CLI_IMAGE,
        workdir: '/workspace',
        cpus: 1,
        memoryMb: 64,
        pids: 16,
        labels: { ...labels, ...orphanLabels, [PID_LABEL]: pid, [HOST_LABEL]: hostname() },
      });
      return (await docker.createContainer(opts)).id;
    };
    try {
      // pid_max on Linux is at most 4194304, so this pid can never be alive.
      const dead = await make('4194305');
      const alive = await make('1');
      const mine = await make(String(process.pid));
      expect(await provider.removeOrphans({ labels: orphanLabels })).toBe(1);
      expect(await inspectStatus(docker, dead)).toBe(404);
      expect(await inspectStatus(docker, alive)).toBe(200);
      expect(await inspectStatus(docker, mine)).toBe(200);
      expect(await provider.removeOrphans({ labels: orphanLabels, includeOwn: true })).toBe(1);
      expect(await inspectStatus(docker, mine)).toBe(404);
      expect(await inspectStatus(docker, alive)).toBe(200);
    } finally {
      await removeLabelled(docker, orphanLabels);
    }
  });

  it('leaves no container behind once this file closes its sandboxes', async () => {
    const left = await labelledContainers(docker, labels);
    expect(left).toEqual([sb.containerId]);
  });
});

describe('errors', () => {
  it('a missing image is IMAGE_MISSING naming the build command, and leaves nothing', async () => {
    const image = 'engiloop/nosuchthing:latest';
    const err = await provider.create(sandboxOptions(labels, { image })).catch((e: unknown) => e);
    expect(isImageMissing(err)).toBe(true);
    expect((err as Error).message).toContain('engiloop images build --only nosuchthing');
    await expect(provider.ensureImage(image)).rejects.toSatisfy(isImageMissing);
    await expect(provider.ensureImage(CLI_IMAGE)).resolves.toBeUndefined();
  });

  it('a dead socket is DOCKER_UNREACHABLE naming the socket, and retryable', async () => {
    const dead = new DockerSandboxProvider({ docker: new Docker({ socketPath: '/tmp/nope.sock' }) });
    const err = await dead.ping().catch((e: unknown) => e);
    expect(isDockerUnreachable(err)).toBe(true);
    expect((err as Error).message).toContain('/tmp/nope.sock');
    expect((err as { retryable: boolean }).retryable).toBe(true);
    await expect(dead.create(sandboxOptions(labels))).rejects.toSatisfy(isDockerUnreachable);
    await expect(dead.removeOrphans()).rejects.toSatisfy(isDockerUnreachable);
  });

  it('an abort before creation creates nothing', async () => {
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(provider.create(sandboxOptions(labels, { signal: ac.signal }))).rejects.toThrow('stop');
  });
});
