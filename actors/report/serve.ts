/**
 * `engiloop view`: the report's pages on localhost, kept up to date from JetStream while episodes
 * run. The files are built into memory as `report` builds them into a folder; a change to an episode,
 * a run or a summary rebuilds what it touches (debounced) and tells the pages through server-sent
 * events at `/live` (`{"key":"report"}`, `{"key":"episode:<id>"}`), which reload that file.
 * Only what was built or bundled is served: a request is looked up by its exact path, never joined
 * onto a folder.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import { join, relative } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { watchChanges, type StoreChange } from '../../streams/index.js';
import type { EpisodeSummary } from '../analysis/index.js';
import { ReportError } from './errors.js';
import type { EpisodeRow, SearchEntry } from './format.js';
import { childrenOf, dataScript, runningRow, searchEntries, SiteBuilder, type ReportStores } from './site.js';
import type { RunInput } from './runs.js';
import { pagesDir } from './write.js';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  png: 'image/png',
  json: 'application/json',
};

/** A running live view. */
export interface LiveView {
  url: string;
  close(): Promise<void>;
}

async function files(dir: string, into: Map<string, Buffer>, base = dir): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await files(p, into, base);
    else into.set(relative(base, p).split('\\').join('/'), await readFile(p));
  }
}

/**
 * Serves the runs `runIds` (empty: the newest run, then each run that starts while it serves).
 * @throws ReportError `PAGES_MISSING`, `PORT_UNAVAILABLE`; AnalysisError `UNKNOWN_ID`.
 */
export async function serveLive(
  stores: ReportStores & { nc: NatsConnection },
  runIds: readonly string[],
  o: { port: number; engiloop: string; refreshMs?: number; log?: (line: string) => void },
): Promise<LiveView> {
  const served = new Map<string, Buffer>();
  await files(pagesDir(), served);
  const builder = new SiteBuilder(
    stores,
    { put: async (path, data) => void served.set(path, Buffer.from(data)) },
    { engiloop: o.engiloop, live: true, search: false },
  );
  const follow = runIds.length === 0;
  const tracked: string[] = [...runIds];
  if (follow) {
    const all = await stores.runs.list();
    let newest: { id: string; at: number } | null = null;
    for (const id of all) {
      const at = (await stores.runs.get(id))?.started.startedAt ?? 0;
      if (!newest || at > newest.at) newest = { id, at };
    }
    if (newest) tracked.push(newest.id);
  }
  const runs = new Map<string, RunInput & { members: Set<string> }>();
  const running = new Map<string, EpisodeRow>();
  const search = new Map<string, SearchEntry[]>();
  const clients = new Set<ServerResponse>();
  const tell = (key: string) => {
    for (const c of clients) c.write(`data: ${JSON.stringify({ key })}\n\n`);
  };

  // The tracked runs' summaries by episode, and the forks of each: rebuilt when the runs are reread.
  let summaries = new Map<string, EpisodeSummary>();
  let children = new Map<string, { episodeId: string; round: number }[]>();
  const reindex = () => {
    const all = [...runs.values()].flatMap((r) => r.summaries);
    summaries = new Map(all.map((x) => [x.episodeId, x]));
    children = childrenOf(all);
  };
  const buildEpisode = async (id: string) => {
    const d = await builder.episode(id, summaries.get(id) ?? null, children.get(id) ?? []);
    if (!d) return;
    search.set(id, searchEntries(d));
    // An episode without its summary yet (running, or ended a moment ago) is listed from its log.
    if (summaries.has(id)) running.delete(id);
    else
      running.set(
        id,
        d.running ? runningRow(d) : { ...runningRow(d), status: d.status, score: d.score, passed: d.passed },
      );
  };
  const loadRun = async (id: string) => {
    const r = await builder.loadRun(id);
    runs.set(id, { ...r, members: new Set(r.record?.started.episodes ?? []) });
    return r;
  };
  let shown = '';
  /** Rebuilds the report; true when it differs from the one the pages have (the time aside). */
  const buildReport = async (): Promise<boolean> => {
    const inputs = [...runs.values()].map((r) => ({
      ...r,
      running: [...running.values()].filter((x) => r.members.has(x.id) && !summaries.has(x.id)),
    }));
    served.set('data/search-0.js', Buffer.from(dataScript('search:0', [...search.values()].flat())));
    const rep = await builder.finish(inputs, 1);
    const now = JSON.stringify({ ...rep, generatedAt: '' });
    const changed = now !== shown;
    shown = now;
    return changed;
  };
  const loaded = [];
  for (const id of tracked) loaded.push(await loadRun(id));
  reindex();
  for (const r of loaded) {
    for (const x of r.summaries) await buildEpisode(x.episodeId);
    for (const p of r.pendingIds) await buildEpisode(p);
  }
  await buildReport();

  // Changes: debounced per file, then the pages are told.
  const dirty = new Set<string>();
  let reportDirty = false;
  let timer: NodeJS.Timeout | null = null;
  let busy: Promise<void> = Promise.resolve();
  const flush = () => {
    timer = null;
    const eps = [...dirty];
    dirty.clear();
    const rep = reportDirty;
    reportDirty = false;
    busy = busy.then(async () => {
      try {
        // Summaries first (only when one was written or a run changed), so an episode that just
        // ended is rebuilt with its failure modes.
        if (rep) {
          for (const id of runs.keys()) await loadRun(id);
          reindex();
        }
        for (const id of eps) {
          await buildEpisode(id);
          tell(`episode:${id}`);
        }
        if ((rep || eps.length) && (await buildReport())) tell('report');
      } catch (e) {
        o.log?.(`live view: rebuild failed: ${(e as Error).message}`);
      }
    });
  };
  const soon = () => (timer ??= setTimeout(flush, 300));
  const onChange = (c: StoreChange) => {
    if (c.kind === 'episode') {
      if ([...runs.values()].some((r) => r.members.has(c.id))) {
        dirty.add(c.id);
        soon();
      }
    } else if (c.kind === 'summary') {
      if (runs.has(c.runId)) {
        reportDirty = true;
        dirty.add(c.id); // its page gets the failure modes
        soon();
      }
    } else if (follow && !runs.has(c.id)) {
      busy = busy.then(() =>
        loadRun(c.id).then(
          () => undefined,
          () => undefined,
        ),
      );
      reportDirty = true;
      soon();
    } else if (runs.has(c.id)) {
      reportDirty = true; // finished, or its episode list grew
      soon();
    }
  };
  const unwatch = watchChanges(stores.nc, onChange);
  const refresh = setInterval(() => {
    reportDirty = true;
    soon();
  }, o.refreshMs ?? 15_000);

  const server = createServer((req, res) => {
    const path =
      decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
    if (path === 'live') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write('retry: 1000\n\n');
      clients.add(res);
      req.on('close', () => clients.delete(res));
      return;
    }
    const body = served.get(path) ?? served.get(`${path.split('/').map(encodeURIComponent).join('/')}`);
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${path}\n`);
      return;
    }
    const ext = path.slice(path.lastIndexOf('.') + 1);
    res.writeHead(200, {
      'content-type': TYPES[ext] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    res.end(body);
  });
  const ping = setInterval(() => {
    for (const c of clients) c.write(': ping\n\n');
  }, 15_000);
  await new Promise<void>((ok, fail) => {
    server.once('error', (e) =>
      fail(
        new ReportError(
          'PORT_UNAVAILABLE',
          `cannot listen on 127.0.0.1:${o.port}: ${e.message} (choose another --port)`,
        ),
      ),
    );
    server.listen(o.port, '127.0.0.1', () => ok());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      unwatch();
      clearInterval(refresh);
      clearInterval(ping);
      if (timer) clearTimeout(timer);
      for (const c of clients) c.end();
      await new Promise<void>((ok) => server.close(() => ok()));
      await busy;
    },
  };
}
