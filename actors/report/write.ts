/**
 * `engiloop report`: writes a static site into a folder — the pages bundled with this build
 * (dist/web), the data of every episode of the runs, screenshots and long outputs as files — that
 * opens from `file://` with no server and no network.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { packageRoot } from '../paths.js';
import { ReportError } from './errors.js';
import { REPORT_FORMAT } from './format.js';
import { childrenOf, runningRow, SiteBuilder, type ReportStores, type SiteStats } from './site.js';
import type { TraceEpisodeFn } from './trace.js';

/** The marker a report folder carries, so writing again may replace it. */
const MARKER = 'engiloop-report.json';

/** Folder of the built pages (index.html, assets/). */
export function pagesDir(): string {
  const dir = join(packageRoot(), 'dist', 'web');
  if (!existsSync(join(dir, 'index.html')))
    throw new ReportError(
      'PAGES_MISSING',
      `the report pages are not built (no ${dir}/index.html): run npm run build`,
    );
  return dir;
}

/** Empties `out` when it is absent, empty or an earlier report; refuses any other folder. */
async function prepare(out: string): Promise<void> {
  const entries = existsSync(out) ? await readdir(out) : [];
  if (entries.length && !entries.includes(MARKER))
    throw new ReportError(
      'OUT_NOT_EMPTY',
      `${out} is not empty and is not an engiloop report (no ${MARKER}): choose a new or empty folder for --out`,
    );
  for (const e of entries) await rm(join(out, e), { recursive: true, force: true });
  await mkdir(out, { recursive: true });
}

/** What `writeReport` made. */
export interface WrittenReport extends SiteStats {
  index: string;
  runs: string[];
}

/**
 * Writes the report of `runIds` into `out`. `onProgress(done, total)` after each episode.
 * @throws ReportError `PAGES_MISSING`, `OUT_NOT_EMPTY`; AnalysisError `UNKNOWN_ID` for an unknown run.
 */
export async function writeReport(
  stores: ReportStores,
  runIds: readonly string[],
  out: string,
  o: {
    engiloop: string;
    onProgress?: (done: number, total: number) => void;
    /** Re-verify each episode that did not pass at its snapshots (`report --trace`). */
    trace?: TraceEpisodeFn;
    warn?: (line: string) => void;
  },
): Promise<WrittenReport> {
  const pages = pagesDir();
  const dir = resolve(out);
  const builder = new SiteBuilder(
    stores,
    {
      put: async (path, data) => {
        const file = join(dir, path);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, data);
      },
    },
    {
      engiloop: o.engiloop,
      live: false,
      ...(o.trace ? { trace: o.trace } : {}),
      ...(o.warn ? { warn: o.warn } : {}),
    },
  );
  const runs = [];
  for (const id of runIds) runs.push(await builder.loadRun(id)); // unknown ids fail before anything is removed
  await prepare(dir);
  await cp(pages, dir, { recursive: true });
  const total = runs.reduce((n, r) => n + r.summaries.length + r.pendingIds.length, 0);
  const children = childrenOf(runs.flatMap((r) => r.summaries));
  let done = 0;
  for (const r of runs) {
    for (const s of r.summaries) {
      await builder.episode(s.episodeId, s, children.get(s.episodeId) ?? []);
      o.onProgress?.(++done, total);
    }
    for (const id of r.pendingIds) {
      const d = await builder.episode(id, null, children.get(id) ?? []);
      if (d) r.running.push(runningRow(d));
      o.onProgress?.(++done, total);
    }
  }
  await builder.finish(runs);
  await writeFile(
    join(dir, MARKER),
    JSON.stringify({ format: REPORT_FORMAT, runs: runIds, generatedAt: new Date().toISOString() }, null, 2) +
      '\n',
  );
  return { ...builder.stats, index: join(dir, 'index.html'), runs: [...runIds] };
}
