/**
 * Sizes and build times of the app images (engiloop/freecad, engiloop/kicad, engiloop/blender).
 *
 * Run directly: `node --import tsx bench/images.ts` prints each image's size (from
 * `docker image inspect`) beside the build time last measured on the 2-core dev machine;
 * `--rebuild` times a `--force` rebuild of each now (minutes; apt downloads included).
 */
import { pathToFileURL } from 'node:url';
import Docker from 'dockerode';
import { buildImages } from '../actors/images/index.js';

/** The app images measured here. */
export const APP_IMAGES = ['freecad', 'kicad', 'blender'] as const;

/**
 * Build times last measured (s), with `engiloop images build --only <name>` on a 2-core machine
 * shared with other builds, after the Dockerfiles' last change.
 */
export const LAST_BUILD_SECONDS: Record<(typeof APP_IMAGES)[number], number> = {
  freecad: 91.3,
  kicad: 55.5,
  blender: 81.1,
};

/** One image's row. */
export interface ImageRow {
  name: string;
  tag: string;
  sizeMb: number | null;
  buildSeconds: number;
  measured: 'now' | 'last';
}

/** Sizes of the app images, with build times: measured now when `rebuild`, else the last ones. */
export async function benchImages(o: { rebuild?: boolean; docker?: Docker } = {}): Promise<ImageRow[]> {
  const docker = o.docker ?? new Docker();
  const rows: ImageRow[] = [];
  for (const name of APP_IMAGES) {
    let seconds = LAST_BUILD_SECONDS[name];
    if (o.rebuild) {
      const [r] = await buildImages(docker, { only: [name], force: true, log: () => undefined });
      seconds = Number(((r?.ms ?? 0) / 1000).toFixed(1));
    }
    const tag = `engiloop/${name}:latest`;
    const info = await docker
      .getImage(tag)
      .inspect()
      .catch(() => null);
    rows.push({
      name,
      tag,
      sizeMb: info === null ? null : Math.round(info.Size / 1e6),
      buildSeconds: seconds,
      measured: o.rebuild ? 'now' : 'last',
    });
  }
  return rows;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await benchImages({ rebuild: process.argv.includes('--rebuild') });
  console.log('image                     size      build');
  for (const r of rows)
    console.log(
      `${r.tag.padEnd(24)}  ${(r.sizeMb === null ? 'missing' : `${r.sizeMb} MB`).padStart(8)}  ${r.buildSeconds.toFixed(1).padStart(6)} s (${r.measured})`,
    );
}
