/** The persistent shell, against the real engine and engiloop/cli:latest. */
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandboxProvider, isContainerGone, type Sandbox } from '../../actors/sandbox/index.js';
import { labelledContainers, removeLabelled, sandboxOptions, uniqueTestLabels } from '../helpers/docker.js';

const docker = new Docker();
const provider = new DockerSandboxProvider({ docker });
const labels = uniqueTestLabels('shell');
const run = { timeoutMs: 10_000, outputCapBytes: 65_536 };
let sb: Sandbox;

beforeAll(async () => {
  sb = await provider.create(sandboxOptions(labels));
});

afterAll(async () => {
  await sb?.close();
  const left = await labelledContainers(docker, labels);
  await removeLabelled(docker, labels);
  expect(left).toEqual([]);
});

describe('persistent shell', () => {
  it('keeps stdout and stderr apart and reports the exit code', async () => {
    const r = await sb.exec('echo out1; echo err1 >&2; printf out2; printf err2 >&2; exit 7', run);
    expect(r).toMatchObject({ stdout: 'out1\nout2', stderr: 'err1\nerr2', exitCode: 7, timedOut: false });
    expect(r.truncated).toBe(false);
  });

  it('reports how long the command ran: at least its sleep, less than its time limit', async () => {
    const r = await sb.exec('sleep 0.3', run);
    expect(r).toMatchObject({ exitCode: 0, timedOut: false });
    expect(r.durationMs).toBeGreaterThanOrEqual(300);
    expect(r.durationMs).toBeLessThan(run.timeoutMs);
  });

  it('survives exit, and each command starts in the workdir with a clean shell', async () => {
    expect((await sb.exec('exit 3', run)).exitCode).toBe(3);
    expect((await sb.exec('cd /tmp; export FOO=1; set -e; false', run)).exitCode).toBe(1);
    const r = await sb.exec('pwd; echo "foo=${FOO:-unset}"', run);
    expect(r).toMatchObject({ stdout: '/workspace\nfoo=unset\n', exitCode: 0 });
  });

  it('runs commands with quotes, newlines and heredocs verbatim', async () => {
    const cmd = `cat <<'EOF' > q.txt\nit's "quoted" $HOME \\n \`x\`\nEOF\ncat q.txt`;
    const r = await sb.exec(cmd, run);
    expect(r.stdout).toBe('it\'s "quoted" $HOME \\n `x`\n');
  });

  it('passes control characters, unicode, quotes and backslashes through unharmed', async () => {
    const text = 'tab\there\rcr ü 🎉 back\\slash \'q\' "dq" $x `y` \x01';
    const r = await sb.exec(`cat <<'EOF'\n${text}\nEOF`, run);
    expect(r.stdout).toBe(`${text}\n`);
  });

  it('runs a command longer than one argv string may be', async () => {
    const big = 'x'.repeat(300_000);
    const r = await sb.exec(`printf %s '${big}' | wc -c`, run);
    expect(r).toMatchObject({ stdout: '300000\n', exitCode: 0 });
  });

  it('gives the command no stdin', async () => {
    const r = await sb.exec('cat; echo done', run);
    expect(r).toMatchObject({ stdout: 'done\n', exitCode: 0 });
  });

  it('kills a command past its timeout, and the next command works', async () => {
    const r = await sb.exec('echo started; sleep 100', { timeoutMs: 1_000, outputCapBytes: 1024 });
    expect(r).toMatchObject({ stdout: 'started\n', timedOut: true, exitCode: 124 });
    expect(r.durationMs).toBeGreaterThanOrEqual(1_000);
    expect(r.durationMs).toBeLessThan(4_000);
    expect((await sb.exec('echo next', run)).stdout).toBe('next\n');
    const ps = await sb.exec('ps -eo args | grep -c "^sleep 100" || true', run);
    expect(ps.stdout).toBe('0\n');
  });

  it('does not call a fast exit 124 a timeout', async () => {
    expect(await sb.exec('exit 124', run)).toMatchObject({ exitCode: 124, timedOut: false });
  });

  it('recovers a wedged shell through the watchdog', async () => {
    // Stopping `timeout` itself means it can never fire: only the node-side watchdog can end this.
    const r = await sb.exec('kill -STOP $PPID; sleep 100', { timeoutMs: 500, outputCapBytes: 1024 });
    expect(r).toMatchObject({ timedOut: true, exitCode: null });
    const next = await sb.exec('echo alive; ps -eo stat,args | grep -c "^T" || true', run);
    expect(next.stdout).toBe('alive\n0\n');
  }, 30_000);

  it('truncates output past the cap but reads to the end', async () => {
    const r = await sb.exec('yes | head -c 1000000; echo tail >&2', {
      timeoutMs: 10_000,
      outputCapBytes: 1000,
    });
    expect(r.truncated).toBe(true);
    expect(r.stdout).toBe('y\n'.repeat(500));
    expect(r.stderr).toBe('tail\n');
    expect(r.exitCode).toBe(0);
    expect((await sb.exec('echo after', run)).stdout).toBe('after\n');
  });

  it('keeps multibyte UTF-8 output whole across chunk boundaries', async () => {
    const r = await sb.exec("for i in $(seq 20000); do printf 'é✓🎉'; done", {
      timeoutMs: 10_000,
      outputCapBytes: 1 << 20,
    });
    expect(r.stdout).toBe('é✓🎉'.repeat(20000));
    const cut = await sb.exec("printf 'a€'", { timeoutMs: 10_000, outputCapBytes: 3 });
    expect(cut).toMatchObject({ stdout: 'a', truncated: true });
  });

  it('serialises concurrent commands', async () => {
    const order: string[] = [];
    const slow = sb.exec('sleep 0.3; echo slow >> order.txt', run).then(() => order.push('slow'));
    const fast = sb.exec('echo fast >> order.txt', run).then(() => order.push('fast'));
    await Promise.all([slow, fast]);
    expect(order).toEqual(['slow', 'fast']);
    expect((await sb.exec('cat order.txt', run)).stdout).toBe('slow\nfast\n');
  });

  it('rejects with the abort reason and recovers', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('user stop')), 300);
    await expect(sb.exec('sleep 100', { ...run, signal: ac.signal })).rejects.toThrow('user stop');
    expect((await sb.exec('echo back', run)).stdout).toBe('back\n');
  });

  // The cost per command (ms, against a docker exec each) is measured by bench/sandbox.ts.
  it('runs every command from the same shell process, not one docker exec each', async () => {
    const parents = new Set<string>();
    for (let i = 0; i < 20; i++) {
      // The command runs under `timeout`, whose parent is the shell.
      const r = await sb.exec('read -r _ _ _ shell _ < /proc/$PPID/stat; echo $shell', run);
      expect(r.exitCode).toBe(0);
      parents.add(r.stdout.trim());
    }
    expect([...parents]).toEqual([expect.stringMatching(/^\d+$/)]);
  });
});

describe('container death', () => {
  it('rejects a running command with CONTAINER_GONE when the container is killed', async () => {
    const own = await provider.create(sandboxOptions(labels, { name: 'doomed' }));
    try {
      const pending = own.exec('sleep 30', run);
      await new Promise((r) => setTimeout(r, 300));
      await docker.getContainer(own.containerId).kill();
      await expect(pending).rejects.toSatisfy(isContainerGone);
      await expect(own.exec('true', run)).rejects.toSatisfy(isContainerGone);
    } finally {
      await own.close();
    }
  });

  it('fails later commands with CONTAINER_GONE once the container is removed', async () => {
    const own = await provider.create(sandboxOptions(labels, { name: 'removed' }));
    await docker.getContainer(own.containerId).remove({ force: true, v: true });
    await expect(own.exec('true', run)).rejects.toSatisfy(isContainerGone);
    await expect(own.putFiles([{ dest: 'x', content: Buffer.from('x') }])).rejects.toSatisfy(isContainerGone);
    await expect(own.getFile('x')).rejects.toSatisfy(isContainerGone);
    await own.close();
  });
});
