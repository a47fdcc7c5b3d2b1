/**
 * Helpers for verifier tests: a real `RunTool` on the local Docker engine, temporary artifact
 * folders, artifacts made by the real apps, and playing a task's scripted solution in a real
 * sandbox to collect its deliverables.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { createRunTool, DockerSandboxProvider } from '../../actors/sandbox/index.js';
import { asyncDispose } from '../../core/index.js';
import type { SolutionStep } from '../../tasks/index.js';
import type { RunTool, VerifierContext } from '../../verifiers/index.js';
import { CLI_IMAGE, removeLabelled, sandboxOptions, uniqueTestLabels } from './docker.js';

/** A real tool runner and sandbox provider whose containers carry labels unique to one test file. */
export interface ToolKit extends AsyncDisposable {
  provider: DockerSandboxProvider;
  runTool: RunTool;
  labels: Record<string, string>;
}

/** A `ToolKit` for test file `name`; disposing removes any container it left behind. */
export function toolKit(name: string): ToolKit {
  const docker = new Docker();
  const provider = new DockerSandboxProvider({ docker });
  const labels = uniqueTestLabels(name);
  return {
    provider,
    labels,
    runTool: createRunTool(provider, { labels, memoryMb: 512 }),
    [asyncDispose]: async () => void (await removeLabelled(docker, labels)),
  };
}

/** A temporary folder, removed on dispose. */
export async function tempDir(prefix: string): Promise<{ path: string } & AsyncDisposable> {
  const dir = await mkdtemp(path.join(tmpdir(), `engiloop-${prefix}-`));
  return { path: dir, [asyncDispose]: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes `files` (relative path → content) under `dir`. */
export async function writeFiles(dir: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
}

/**
 * Runs a real app on source files and returns the file it makes, e.g.
 * `makeWithTool(runTool, 'openscad -o part.stl part.scad', { 'part.scad': scad }, 'part.stl')`.
 * Throws with the app's output when the file does not appear.
 */
export async function makeWithTool(
  runTool: RunTool,
  command: string,
  sources: Record<string, string>,
  output: string,
): Promise<Buffer> {
  await using src = await tempDir('src');
  await writeFiles(src.path, sources);
  const r = await runTool({
    image: CLI_IMAGE,
    command,
    files: Object.keys(sources).map((rel) => ({ hostPath: path.join(src.path, rel), dest: rel })),
    timeoutMs: 60_000,
    collect: [output],
  });
  const out = r.files[output];
  if (out === undefined)
    throw new Error(`${command} made no ${output} (exit ${r.exitCode}): ${r.stderr}${r.stdout}`);
  return out;
}

/**
 * Plays a scripted solution (rounds of shell actions) in a fresh sandbox of `CLI_IMAGE` and copies
 * the deliverables that exist into `artifactsDir`. Returns each command's output for diagnostics.
 */
export async function playSolution(
  kit: ToolKit,
  steps: readonly SolutionStep[],
  deliverables: readonly string[],
  artifactsDir: string,
): Promise<string[]> {
  await using sb = await kit.provider.create(sandboxOptions(kit.labels));
  const log: string[] = [];
  for (const step of steps)
    for (const action of Array.isArray(step) ? step : [step]) {
      if (action.type !== 'shell')
        throw new Error(`playSolution plays shell actions only, got ${action.type}`);
      const r = await sb.exec(action.command, { timeoutMs: 60_000, outputCapBytes: 65_536 });
      log.push(`$ ${action.command.split('\n')[0]} → exit ${r.exitCode}\n${r.stdout}${r.stderr}`);
    }
  for (const rel of deliverables) {
    const content = await sb.getFile(rel);
    if (content !== null) await writeFiles(artifactsDir, { [rel]: content });
  }
  return log;
}

/** A verifier context over `artifactsDir`, with the kit's real `RunTool`. */
export function contextFor(kit: ToolKit, artifactsDir: string, taskDir = artifactsDir): VerifierContext {
  return { artifactsDir, taskDir, runTool: kit.runTool };
}
