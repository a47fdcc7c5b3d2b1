/** `createRunTool`, against the real engine and engiloop/cli:latest. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DockerSandboxProvider,
  createRunTool,
  isImageMissing,
  isSandboxIo,
} from '../../actors/sandbox/index.js';
import { CLI_IMAGE, labelledContainers, removeLabelled, uniqueTestLabels } from '../helpers/docker.js';

const docker = new Docker();
const labels = uniqueTestLabels('tool');
const runTool = createRunTool(new DockerSandboxProvider({ docker }), { labels });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engiloop-tool-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  const left = await labelledContainers(docker, labels);
  await removeLabelled(docker, labels);
  expect(left).toEqual([]);
});

describe('createRunTool', () => {
  it('runs a command and collects its output file', async () => {
    const r = await runTool({
      image: CLI_IMAGE,
      command: 'echo hi > out.txt; echo said >&2',
      files: [],
      timeoutMs: 10_000,
      collect: ['out.txt', 'never-made.txt'],
    });
    expect(r).toMatchObject({ stdout: '', stderr: 'said\n', exitCode: 0, timedOut: false });
    expect(Object.keys(r.files)).toEqual(['out.txt']);
    expect(r.files['out.txt']?.toString()).toBe('hi\n');
    expect(await labelledContainers(docker, labels)).toEqual([]);
  });

  it('copies host files in and runs a real app on them, with no network', async () => {
    await writeFile(join(dir, 'cube.scad'), 'cube([1, 2, 3]);\n');
    const r = await runTool({
      image: CLI_IMAGE,
      command:
        'mkdir -p model && openscad -o model/cube.stl in/cube.scad 2>/dev/null && grep -c facet model/cube.stl; ls /sys/class/net',
      files: [{ hostPath: join(dir, 'cube.scad'), dest: 'in/cube.scad' }],
      timeoutMs: 60_000,
      collect: ['model/cube.stl'],
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('24\nlo\n');
    expect(r.files['model/cube.stl']?.toString()).toMatch(/^solid/);
  });

  it('reports a timeout as a result and still removes the container', async () => {
    const r = await runTool({ image: CLI_IMAGE, command: 'sleep 60', files: [], timeoutMs: 1_000 });
    expect(r).toMatchObject({ timedOut: true, exitCode: 124, files: {} });
    expect(await labelledContainers(docker, labels)).toEqual([]);
  });

  it('throws IMAGE_MISSING for an image that is not built and SANDBOX_IO for a missing host file', async () => {
    await expect(
      runTool({ image: 'engiloop/absent:latest', command: 'true', files: [], timeoutMs: 1_000 }),
    ).rejects.toSatisfy(isImageMissing);
    await expect(
      runTool({
        image: CLI_IMAGE,
        command: 'true',
        files: [{ hostPath: join(dir, 'nope'), dest: 'x' }],
        timeoutMs: 1_000,
      }),
    ).rejects.toSatisfy(isSandboxIo);
  });
});
