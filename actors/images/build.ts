/**
 * `engiloop images build`: builds what is missing or out of date, with progress. An image is up to
 * date when its `io.engiloop.hash` label equals the hash of its folder's files (and, for Dockerfile
 * images, its base's hash), so nothing is rebuilt needlessly.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { pack } from 'tar-stream';
import { packageRoot } from '../paths.js';
import { IMAGES, type ImageDef } from './catalog.js';
import { ImageError } from './errors.js';

const HASH_LABEL = 'io.engiloop.hash';

async function folderFiles(dir: string): Promise<{ rel: string; data: Buffer }[]> {
  const out: { rel: string; data: Buffer }[] = [];
  const walk = async (d: string, prefix: string) => {
    for (const e of (await readdir(d, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(join(d, e.name), rel);
      else out.push({ rel, data: await readFile(join(d, e.name)) });
    }
  };
  await walk(dir, '');
  return out;
}

/** Content hash of an image's definition, chained through its base. */
async function imageHash(def: ImageDef): Promise<string> {
  const h = createHash('sha256');
  for (const f of await folderFiles(join(packageRoot(), 'deploy/images', def.name)))
    h.update(f.rel).update('\0').update(f.data);
  const base = def.from ? IMAGES.find((i) => i.name === def.from) : undefined;
  if (base) h.update(await imageHash(base));
  return h.digest('hex').slice(0, 16);
}

async function labelOf(docker: Docker, tag: string): Promise<string | null> {
  try {
    const info = await docker.getImage(tag).inspect();
    return info.Config?.Labels?.[HASH_LABEL] ?? null;
  } catch {
    return null;
  }
}

export type BuildLog = (line: string) => void;

function runScript(cmd: string, args: string[], log: BuildLog): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const onData = (b: Buffer) =>
      b
        .toString()
        .split('\n')
        .filter(Boolean)
        .forEach((l) => {
          tail.push(l);
          if (tail.length > 20) tail.shift();
          log(l);
        });
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new ImageError('IMAGE_BUILD_FAILED', `${cmd} exited ${code}:\n${tail.join('\n')}`)),
    );
  });
}

async function buildDockerfile(docker: Docker, def: ImageDef, hash: string, log: BuildLog): Promise<void> {
  const tar = pack();
  for (const f of await folderFiles(join(packageRoot(), 'deploy/images', def.name)))
    tar.entry({ name: f.rel }, f.data);
  tar.finalize();
  const stream = await docker.buildImage(tar as unknown as NodeJS.ReadableStream, {
    t: def.tag,
    labels: { [HASH_LABEL]: hash },
    rm: true,
    forcerm: true,
  });
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err, out) => {
        const failed = (out as { error?: string }[] | undefined)?.find((o) => o.error);
        if (err || failed)
          reject(
            new ImageError('IMAGE_BUILD_FAILED', `building ${def.tag}: ${err?.message ?? failed?.error}`),
          );
        else resolve();
      },
      (ev: { stream?: string }) => {
        const s = ev.stream?.trim();
        if (s && /^Step \d+\/\d+/.test(s)) log(s.slice(0, 160));
      },
    );
  });
}

export interface BuildOptions {
  only?: string[];
  force?: boolean;
  log: BuildLog;
}

/** Builds the images (in dependency order); returns what was built or skipped, with times. */
export async function buildImages(
  docker: Docker,
  o: BuildOptions,
): Promise<{ name: string; tag: string; action: 'built' | 'up-to-date'; ms: number }[]> {
  const unknown = (o.only ?? []).filter((n) => !IMAGES.some((i) => i.name === n));
  if (unknown.length)
    throw new ImageError(
      'IMAGE_UNKNOWN',
      `unknown image ${unknown.join(', ')} (known: ${IMAGES.map((i) => i.name).join(', ')})`,
    );
  const wanted = IMAGES.filter((i) => !o.only?.length || o.only.includes(i.name));
  const report: { name: string; tag: string; action: 'built' | 'up-to-date'; ms: number }[] = [];
  for (const def of IMAGES) {
    const hash = await imageHash(def);
    const current = (await labelOf(docker, def.tag)) === hash;
    // A base is built when a wanted image needs it and it is missing.
    const needed =
      wanted.includes(def) ||
      (wanted.some((w) => w.from === def.name) && (await labelOf(docker, def.tag)) === null);
    if (!needed) continue;
    if (current && !o.force) {
      o.log(`${def.tag}: up to date (${hash})`);
      report.push({ name: def.name, tag: def.tag, action: 'up-to-date', ms: 0 });
      continue;
    }
    const t0 = Date.now();
    o.log(`${def.tag}: building (${def.kind})…`);
    if (def.kind === 'debootstrap')
      await runScript(
        'bash',
        [join(packageRoot(), 'deploy/images', def.name, 'build.sh'), def.tag, `${HASH_LABEL}=${hash}`],
        (l) => o.log(`  ${l}`),
      );
    else await buildDockerfile(docker, def, hash, (l) => o.log(`  ${l}`));
    const ms = Date.now() - t0;
    o.log(`${def.tag}: built in ${(ms / 1000).toFixed(1)} s`);
    report.push({ name: def.name, tag: def.tag, action: 'built', ms });
  }
  return report;
}
