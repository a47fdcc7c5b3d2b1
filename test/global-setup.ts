/**
 * Runs once around all test files. `npm test` first runs scripts/setup.sh, which installs and starts
 * Docker and nats-server and builds the images; here we check they are really there (a missing
 * service fails the run loudly, never skips tests), and afterwards that no container was left.
 */
import { spawnSync } from 'node:child_process';
import Docker from 'dockerode';

const IMAGES = ['engiloop/base:bookworm', 'engiloop/cli:latest'];
let startedAt = 0;

export async function setup(): Promise<void> {
  startedAt = Math.floor(Date.now() / 1000) - 1;
  const nats = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
  if (nats.error)
    throw new Error(
      'nats-server is not installed: run `npm test` (it runs scripts/setup.sh) or `bash scripts/bootstrap-system.sh`',
    );
  const docker = new Docker();
  try {
    await docker.ping();
  } catch (e) {
    throw new Error(
      `Docker engine unreachable (${(e as Error).message}): run \`bash scripts/bootstrap-system.sh\``,
    );
  }
  for (const tag of IMAGES)
    await docker
      .getImage(tag)
      .inspect()
      .catch(() => {
        throw new Error(`image ${tag} is missing: run \`npx tsx actors/cli/main.ts images build\``);
      });
}

export async function teardown(): Promise<void> {
  const docker = new Docker();
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
    }
  };
  // Test workers have exited by now: a container of this run whose creating process is gone leaked.
  const left = (await docker.listContainers({ all: true, filters: { label: ['io.engiloop'] } })).filter(
    (c) => c.Created >= startedAt && !alive(Number(c.Labels['io.engiloop.pid'])),
  );
  // Containers of this test run whose creator is gone are leaks: remove them, then fail loudly.
  await Promise.all(
    left.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
  if (left.length > 0)
    throw new Error(
      `${left.length} container(s) were left behind by the tests: ${left.map((c) => `${c.Names[0]} ${JSON.stringify(c.Labels)}`).join('; ')}`,
    );
}
