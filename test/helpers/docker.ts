/**
 * Docker helpers for tests: unique labels per test file, and clean-up of everything so labelled.
 * Tests run against the real engine and the locally built `engiloop/cli:latest` (never pulled).
 */
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import type { SandboxCreateOptions } from '../../actors/sandbox/index.js';

/** The image every sandbox test uses. */
export const CLI_IMAGE = 'engiloop/cli:latest';
/** Label key put on every container a test creates. */
const TEST_LABEL = 'io.engiloop.test';

/** A label set unique to one test file (or one test): `{ 'io.engiloop.test': '<name>-<random>' }`. */
export function uniqueTestLabels(name: string): Record<string, string> {
  return { [TEST_LABEL]: `${name}-${randomBytes(4).toString('hex')}` };
}

/** Options for a small sandbox of `CLI_IMAGE` carrying `labels`. */
export function sandboxOptions(
  labels: Record<string, string>,
  overrides: Partial<SandboxCreateOptions> = {},
): SandboxCreateOptions {
  return {
    name: 'main',
    image: CLI_IMAGE,
    workdir: '/workspace',
    cpus: 1,
    memoryMb: 512,
    pids: 256,
    labels,
    ...overrides,
  };
}

function labelFilter(labels: Record<string, string>): { label: string[] } {
  return { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) };
}

/** Ids of all containers (running or not) carrying every one of `labels`. */
export async function labelledContainers(docker: Docker, labels: Record<string, string>): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: labelFilter(labels) });
  return list.map((c) => c.Id);
}

/** Force-removes (with volumes) every container carrying `labels`; returns how many. */
export async function removeLabelled(docker: Docker, labels: Record<string, string>): Promise<number> {
  const ids = await labelledContainers(docker, labels);
  await Promise.all(
    ids.map((id) =>
      docker
        .getContainer(id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
  return ids.length;
}

/** Inspect status of a container: its HTTP error code when inspect fails (404 once removed). */
export async function inspectStatus(docker: Docker, id: string): Promise<number> {
  try {
    await docker.getContainer(id).inspect();
    return 200;
  } catch (err) {
    return (err as { statusCode?: number }).statusCode ?? 0;
  }
}
