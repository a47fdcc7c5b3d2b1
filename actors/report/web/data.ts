/**
 * Loads the report's data files. They are scripts calling `engiloopData(key, payload)` (a page opened
 * from `file://` may not fetch), so a load appends a `<script src>` and waits for that call.
 */
import type { EpisodeData, ReportData, SearchEntry } from '../format.js';
import { REPORT_FORMAT } from '../format.js';

/** A data file that could not be loaded or was not what the pages read. */
export class DataError extends Error {
  override name = 'DataError';
  constructor(
    readonly code: 'load_failed' | 'missing_key' | 'bad_format',
    message: string,
  ) {
    super(message);
  }
}

declare global {
  var engiloopData: (key: string, payload: unknown) => void;
}

const cache = new Map<string, unknown>();
const pending = new Map<string, Promise<unknown>>();
let version = 0;

globalThis.engiloopData = (key: string, payload: unknown) => {
  cache.set(key, payload);
};

/** The file of a key, relative to index.html. */
function fileOf(key: string): string {
  if (key === 'report') return 'data/report.js';
  const colon = key.indexOf(':');
  const kind = key.slice(0, colon);
  const name = key.slice(colon + 1);
  // The writer names an episode file encodeURIComponent(id); as a URL that name is encoded again.
  if (kind === 'episode') return `data/episodes/${encodeURIComponent(encodeURIComponent(name))}.js`;
  if (kind === 'search') return `data/search-${encodeURIComponent(name)}.js`;
  if (kind === 'text') return `data/text/${encodeURIComponent(name)}.js`;
  throw new DataError('missing_key', `unknown data key ${key}`);
}

/** Loads a key (once; `reload` loads its file again, past the browser's cache). */
function load(key: string, reload = false): Promise<unknown> {
  if (!reload && cache.has(key)) return Promise.resolve(cache.get(key));
  const inFlight = pending.get(key);
  if (inFlight && !reload) return inFlight;
  const file = fileOf(key);
  const p = new Promise<unknown>((resolve, reject) => {
    if (reload) cache.delete(key);
    const el = document.createElement('script');
    el.src = reload ? `${file}?v=${++version}` : file;
    el.onload = () => {
      el.remove();
      if (cache.has(key)) resolve(cache.get(key));
      else reject(new DataError('missing_key', `${file} loaded but did not define "${key}"`));
    };
    el.onerror = () => {
      el.remove();
      reject(new DataError('load_failed', `could not load ${file}`));
    };
    document.head.appendChild(el);
  }).finally(() => pending.delete(key));
  pending.set(key, p);
  return p;
}

function checkFormat(file: string, d: unknown): void {
  const format = (d as { format?: unknown } | null)?.format;
  if (format !== REPORT_FORMAT)
    throw new DataError(
      'bad_format',
      `${file} is in report format ${String(format)}; these pages read format ${REPORT_FORMAT}: open it with the pages it was written with`,
    );
}

/** The report (`data/report.js`). */
export async function loadReport(reload = false): Promise<ReportData> {
  const d = await load('report', reload);
  checkFormat(fileOf('report'), d);
  return d as ReportData;
}

/** One episode (`data/episodes/<id>.js`). */
export async function loadEpisode(id: string, reload = false): Promise<EpisodeData> {
  const key = `episode:${id}`;
  const d = await load(key, reload);
  checkFormat(fileOf(key), d);
  return d as EpisodeData;
}

/** A long text (`data/text/<name>.js`). */
export async function loadText(name: string): Promise<string> {
  const d = await load(`text:${name}`);
  return typeof d === 'string' ? d : String(d);
}

/** The whole search index, every chunk. */
export async function loadSearch(chunks: number): Promise<SearchEntry[]> {
  const parts = await Promise.all(Array.from({ length: chunks }, (_, n) => load(`search:${n}`)));
  return parts.flatMap((p) => (Array.isArray(p) ? (p as SearchEntry[]) : []));
}
