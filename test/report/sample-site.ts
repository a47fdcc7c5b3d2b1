/**
 * Writes a sample report site into a temp folder, in the layout `engiloop report` writes: the built
 * pages (dist/web, built first when missing) and `data/`, `files/` as described in format.ts.
 */
import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleData, type SampleData, type SampleOptions } from './sample-data.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Builds dist/web (`node scripts/build-web.mjs`) when it is missing, older than a source, or `force`. */
export function buildWeb(force = false): void {
  const out = join(ROOT, 'dist/web/assets/app.js');
  const web = join(ROOT, 'actors/report/web');
  const sources = [
    ...readdirSync(web).map((f) => join(web, f)),
    join(ROOT, 'actors/report/format.ts'),
    join(ROOT, 'scripts/build-web.mjs'),
  ];
  const built = existsSync(out) ? statSync(out).mtimeMs : 0;
  if (!force && sources.every((f) => statSync(f).mtimeMs <= built)) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build-web.mjs')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build-web failed: ${r.stderr || r.stdout}`);
}

const script = (key: string, payload: unknown) =>
  `engiloopData(${JSON.stringify(key)}, ${JSON.stringify(payload)});\n`;

// Writes `data` as a site under `dir`.
async function writeSite(dir: string, data: SampleData): Promise<void> {
  await cp(join(ROOT, 'dist/web'), dir, { recursive: true });
  await mkdir(join(dir, 'data/episodes'), { recursive: true });
  await mkdir(join(dir, 'data/text'), { recursive: true });
  await mkdir(join(dir, 'files'), { recursive: true });
  await writeFile(join(dir, 'data/report.js'), script('report', data.report));
  for (const e of data.episodes)
    await writeFile(
      join(dir, 'data/episodes', `${encodeURIComponent(e.id)}.js`),
      script(`episode:${e.id}`, e),
    );
  for (const [n, chunk] of data.search.entries())
    await writeFile(join(dir, `data/search-${n}.js`), script(`search:${n}`, chunk));
  for (const [name, t] of Object.entries(data.texts))
    await writeFile(join(dir, 'data/text', `${name}.js`), script(`text:${name}`, t));
  for (const [path, bytes] of Object.entries(data.files)) await writeFile(join(dir, path), bytes);
}

/** A fresh sample site in a temp folder: its folder, its `file://` URL and the data. */
export async function sampleSite(
  opts: SampleOptions = {},
): Promise<{ dir: string; url: string; data: SampleData }> {
  buildWeb();
  const dir = await mkdtemp(join(tmpdir(), 'engiloop-site-'));
  const data = sampleData(opts);
  await writeSite(dir, data);
  return { dir, url: `file://${join(dir, 'index.html')}`, data };
}
