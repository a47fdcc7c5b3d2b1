/**
 * Hostile agents, in real sandboxes: each attack of issue 11 is played by an agent in a real
 * episode (real nats-server, real Docker, real verifiers) and the outcome is asserted: the episode
 * ends scored (never infra_error), the host's disk and the harness's memory stay within bounds,
 * and nothing is left running. Limits are small so no attack can fill the CI machine.
 *
 * The issue's other attacks have their own files, beside the code they test:
 * - the 1 MB MCP command and oversized MCP messages: test/mcp/limits.test.ts (real `engiloop mcp`);
 * - task inputs (links out, FIFOs, devices, billion laughs, huge YAML, bad workdir, timeouts out of
 *   range): test/tasks/hostile-inputs.test.ts;
 * - a provider key echoed into a tool call: test/agents/redact-events.test.ts;
 * - control characters from sandbox output in terminal views: test/cli/escape.test.ts;
 * - retention and `engiloop gc`: test/streams/gc.test.ts.
 */
import { statfs } from 'node:fs/promises';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../actors/agents/index.js';
import { createAgent } from '../../actors/agents/index.js';
import { viewImageAction } from '../../actors/agents/llm/index.js';
import { DISK_DIR } from '../../actors/sandbox/disk.js';
import type { EpisodeEvent } from '../../streams/events.js';
import type { Action, LoadedTask } from '../../tasks/index.js';
import { join } from 'node:path';
import { loadTask } from '../../tasks/index.js';
import { episodeKit, starter, type EpisodeKit } from '../helpers/episode.js';

let kit: EpisodeKit;
let plate: LoadedTask;
beforeAll(async () => {
  kit = await episodeKit();
  const base = await starter('openscad-plate');
  // Small limits: no attack may cost the CI machine more than a few hundred MiB.
  plate = {
    ...base,
    task: {
      ...base.task,
      limits: { ...base.task.limits, max_rounds: 12, disk_mb: 256, file_cap_mb: 16, action_timeout_sec: 20 },
      environment: {
        sandboxes: {
          main: {
            ...base.task.environment.sandboxes.main!,
            resources: { cpus: 1, memory_mb: 512, pids: 128 },
          },
        },
      },
    },
  };
});
afterAll(async () => {
  await kit?.close();
});

const reference = (lt: LoadedTask): Action[][] => lt.task.reference.map((s) => [s].flat());

/** Plays `attack` (one round per entry), then the task's reference, then says done. */
function attacker(name: string, attack: Action[][], after: Action[][] = reference(plate)): Agent {
  const rounds = [...attack, ...after];
  return {
    name,
    decide: async ({ round }) => (round <= rounds.length ? { actions: rounds[round - 1] } : { done: true }),
  };
}

const shell = (command: string, timeout_sec?: number): Action => ({
  type: 'shell',
  command,
  ...(timeout_sec === undefined ? {} : { timeout_sec }),
});

async function executed(id: string): Promise<Extract<EpisodeEvent, { type: 'action.executed' }>[]> {
  return (await kit.log.read(id)).filter(
    (e): e is Extract<EpisodeEvent, { type: 'action.executed' }> => e.type === 'action.executed',
  );
}

/** Peak resident set of this process while `fn` runs, in MiB above the start. */
async function peakRssGrowth<T>(fn: () => Promise<T>): Promise<{ value: T; growthMb: number }> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, growthMb: (peak - start) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

const freeBytes = async (path: string): Promise<number> => {
  const s = await statfs(path);
  return s.bavail * s.bsize;
};

describe('an agent cannot escape its score', () => {
  it('kill -9 -1: the action fails, the shell restarts in the same container, the episode is scored', async () => {
    const r = await kit.run(plate, attacker('killall', [[shell('kill -9 -1; echo never')]]));
    expect(r.status, JSON.stringify(r.error)).toBe('done');
    expect(r.score).toBe(1);
    const events = await kit.log.read(r.episodeId);
    expect(events.some((e) => e.type === 'sandbox.lost' || e.type === 'infra.failed')).toBe(false);
    const [kill, ...rest] = await executed(r.episodeId);
    expect(kill!.result.fault?.code).toBe('SHELL_KILLED');
    expect(kill!.result.stderr).toMatch(/shell was killed/);
    expect(rest.every((e) => e.result.exitCode === 0)).toBe(true);
  });

  it('a fork bomb costs one round: the process limit stops it, it is reaped, the episode is scored', async () => {
    const t0 = Date.now();
    const r = await kit.run(
      plate,
      attacker('forkbomb', [[shell(':(){ :|:& };:; sleep 3', 10)], [shell('ps -e --no-headers | wc -l')]]),
    );
    expect(r.status, JSON.stringify(r.error)).toBe('done');
    expect(r.score).toBe(1);
    expect(Date.now() - t0).toBeLessThan(90_000);
    const [bomb, count] = await executed(r.episodeId);
    expect(bomb!.result.fault?.code).toBe('PIDS_EXHAUSTED');
    expect(bomb!.result.stderr).toMatch(/killed \d+ process\(es\)/);
    // init, sleep, the shell, timeout, bash, ps, wc: nothing of the bomb is left.
    expect(Number(count!.result.stdout.trim())).toBeLessThan(10);
  });

  it('truncate -s 5G on the deliverable: scored 0 with both sizes, harness memory flat', async () => {
    const { value: r, growthMb } = await peakRssGrowth(() =>
      kit.run(plate, attacker('sparse', [], [...reference(plate), [shell('truncate -s 5G part.stl')]])),
    );
    expect(r.status, JSON.stringify(r.error)).toBe('done');
    expect(r.score).toBe(0);
    for (const v of r.verdicts) {
      expect(v.passed).toBe(false);
      expect(v.reason).toMatch(/part\.stl is 5\.0 GiB \(5368709120 bytes\), over the 16 MiB cap/);
    }
    expect(growthMb).toBeLessThan(150);
  });

  it('a deliverable that is a symlink out of the workspace is refused, not followed', async () => {
    const r = await kit.run(plate, attacker('link', [], [[shell('ln -s /etc/passwd part.stl')]]));
    expect(r.status).toBe('done');
    expect(r.score).toBe(0);
    expect(r.verdicts[0]!.reason).toMatch(/part\.stl is a symbolic link \(to \/etc\/passwd\)/);
  });
});

describe('the host cannot be filled', () => {
  it('a 3 GiB write stops with No space left on device inside; host free space drops by at most the limit', async () => {
    const before = await freeBytes(DISK_DIR);
    let during = Number.POSITIVE_INFINITY;
    const agent: Agent = {
      name: 'filler',
      decide: async ({ round }) => {
        if (round === 1) return { actions: [shell('dd if=/dev/zero of=fill bs=1M count=3072', 60)] };
        if (round === 2) {
          during = await freeBytes(DISK_DIR);
          return {
            actions: [
              shell('head -c 1G /dev/zero > /tmp/fill; df -m /tmp | tail -1'),
              shell('head -c 1G /dev/zero > /dev/shm/fill; df -m /dev/shm | tail -1'),
            ],
          };
        }
        return { done: true };
      },
    };
    const r = await kit.run(plate, agent);
    expect(r.status, JSON.stringify(r.error)).toBe('done');
    const [dd, tmp, shm] = await executed(r.episodeId);
    expect(dd!.result.stderr).toMatch(/No space left on device/);
    expect(dd!.result.fault?.code).toBe('DISK_FULL');
    for (const e of [tmp!, shm!]) {
      expect(e.result.stderr).toMatch(/No space left on device/);
      expect(e.result.fault?.code).toBe('DISK_FULL');
    }
    // disk_mb 256: /tmp gets 64 MiB, /dev/shm 16, the workspace the rest.
    expect(tmp!.result.stdout).toMatch(/\s64\s+64\s+0\s+100%/);
    expect(shm!.result.stdout).toMatch(/\s16\s+16\s+0\s+100%/);
    const usedMb = (before - during) / 2 ** 20;
    expect(usedMb).toBeLessThan(256);
    expect(usedMb).toBeGreaterThan(100); // the fill did land on the host's disk, within its limit
    // Once the sandbox is gone, so is every byte it held.
    expect((before - (await freeBytes(DISK_DIR))) / 2 ** 20).toBeLessThan(32);
  });

  it('nothing an agent prints reaches a container log, and it cannot signal the container', async () => {
    const r = await kit.run(
      plate,
      attacker('logger', [[shell('echo spam > /proc/1/fd/1; kill -9 1; echo rc=$?')]], []),
    );
    const [e] = await executed(r.episodeId);
    expect(e!.result.stderr).toMatch(/Permission denied|Operation not permitted/);
    const events = await kit.log.read(r.episodeId);
    const provisioned = events.find((x) => x.type === 'sandbox.provisioned');
    expect(provisioned).toBeDefined();
    expect(r.status).toBe('done');
  });

  it('a 5 GiB sparse hand-off is refused with both sizes; the workflow goes on', async () => {
    const base = await loadTask(join(import.meta.dirname, '../fixtures/tasks/handoff-print'));
    const lt: LoadedTask = {
      ...base,
      task: { ...base.task, limits: { ...base.task.limits, file_cap_mb: 16 } },
    };
    const agent: Agent = {
      name: 'bulk-handoff',
      decide: async ({ round }) => {
        if (round === 1)
          return { actions: [{ type: 'shell', sandbox: 'cad', command: 'truncate -s 5G huge.stl' }] };
        if (round === 2)
          return { actions: [{ type: 'handoff', from: 'cad', path: 'huge.stl', to: 'slicer' }] };
        return { fail: 'gave up' };
      },
    };
    const { value: r, growthMb } = await peakRssGrowth(() => kit.run(lt, agent));
    expect(r.status, JSON.stringify(r.error)).toBe('failed');
    expect(r.score).toBe(0);
    const [, h] = await executed(r.episodeId);
    expect(h!.result.exitCode).toBe(1);
    expect(h!.result.fault?.code).toBe('FILE_CAP');
    expect(h!.result.stderr).toMatch(/huge\.stl is 5\.0 GiB \(5368709120 bytes\), over the 16 MiB cap/);
    expect((await kit.log.read(r.episodeId)).some((e) => e.type === 'artifact.handed_off')).toBe(false);
    expect(growthMb).toBeLessThan(150);
  });

  it('view_image of a 5 GiB sparse file is answered with its size, not read', async () => {
    let seen = '';
    const agent: Agent = {
      name: 'peeker',
      decide: async ({ round, observation }) => {
        if (round === 1) return { actions: [shell('truncate -s 5G shot.png')] };
        if (round === 2) return { actions: [viewImageAction('shot.png')] };
        seen = observation;
        return { done: true };
      },
    };
    const { growthMb } = await peakRssGrowth(() => kit.run(plate, agent));
    expect(growthMb).toBeLessThan(150);
    expect(seen).toMatch(/view_image shot\.png: larger than 5 MiB \(5\.0 GiB\)/);
  });

  it('a snapshot past the episode budget is skipped and recorded, the episode goes on', async () => {
    const lt: LoadedTask = {
      ...plate,
      task: { ...plate.task, limits: { ...plate.task.limits, snapshot_every: 1, store_budget_mb: 1 } },
    };
    const r = await kit.run(lt, attacker('hoarder', [[shell('head -c 3M /dev/urandom > noise.bin')]]));
    expect(r.status).toBe('done');
    expect(r.score).toBe(1);
    const skipped = (await kit.log.read(r.episodeId)).filter((e) => e.type === 'snapshot.skipped');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0]).toMatchObject({ sandbox: 'main', budgetBytes: 2 ** 20 });
  });

  it('a deliverable past the episode store budget is refused with the budget in the reason', async () => {
    const lt: LoadedTask = {
      ...plate,
      task: { ...plate.task, limits: { ...plate.task.limits, snapshot_every: 0, store_budget_mb: 1 } },
    };
    const r = await kit.run(lt, attacker('bloat', [], [[shell('head -c 3M /dev/urandom > part.stl')]]));
    expect(r.status).toBe('done');
    expect(r.score).toBe(0);
    expect(r.verdicts[0]!.reason).toMatch(
      /part\.stl \(3145728 bytes\) would pass the episode's store budget: 0\.0 of 1\.0 MiB/,
    );
  });

  it('a workspace made unreadable (chmod 000) skips its snapshot; the episode is still scored', async () => {
    const lt: LoadedTask = {
      ...plate,
      task: { ...plate.task, limits: { ...plate.task.limits, snapshot_every: 1 } },
    };
    const r = await kit.run(
      lt,
      attacker('locker', [], [...reference(plate), [shell('chmod 000 /workspace')]]),
    );
    expect(r.status, JSON.stringify(r.error)).toBe('done');
    expect(r.score).toBe(1);
    const skipped = (await kit.log.read(r.episodeId)).filter((e) => e.type === 'snapshot.skipped');
    expect(skipped.at(-1)).toMatchObject({ error: expect.stringMatching(/Permission denied/) });
  });
});

describe('processes', () => {
  it('a timed-out command loses its whole process tree, and leftovers are reaped unless declared services', async () => {
    const lt: LoadedTask = {
      ...plate,
      task: {
        ...plate.task,
        environment: {
          sandboxes: { main: { ...plate.task.environment.sandboxes.main!, services: ['^sleep 777$'] } },
        },
      },
    };
    const agent = attacker(
      'lingerer',
      [
        // The subshell's sleep is in the command's process group (killed by the timeout); the
        // setsid one left it and is reaped.
        [shell('setsid sleep 301 & (sleep 300 &); sleep 300', 1)],
        // The second sleep 777 is a forked shell for 0.2 s before it becomes the service.
        [
          shell(
            'setsid sleep 999 & nohup sleep 888 >/dev/null 2>&1 & sleep 777 & (sleep 0.2; exec sleep 777) & echo started',
          ),
        ],
        [shell("ps -u 1000 -o args --no-headers | grep '^sleep' || true")],
      ],
      [],
    );
    const r = await kit.run(lt, agent);
    expect(r.status).toBe('done');
    const [timed, started, ps] = await executed(r.episodeId);
    expect(timed!.result.timedOut).toBe(true);
    expect(timed!.result.stderr).toMatch(/killed 1 process\(es\)/);
    expect(started!.result.stderr).toMatch(/killed \d+ process\(es\)/);
    expect(ps!.result.stdout.trim().split('\n')).toEqual(['sleep 777', 'sleep 777']);
  });

  it('leaves no container, volume or loop device behind', async () => {
    expect(await kit.leftovers()).toEqual([]);
    const volumes = await new Docker().listVolumes({ filters: { label: [`io.engiloop.run=${kit.runId}`] } });
    expect(volumes.Volumes ?? []).toEqual([]);
  });
});

it('the reference still passes under the small limits (the attacks are what fail)', async () => {
  const r = await kit.run(plate, createAgent('scripted', plate));
  expect(r.status).toBe('done');
  expect(r.score).toBe(1);
});
