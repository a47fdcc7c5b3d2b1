/**
 * Builds a report's files — `data/report.js`, one `data/episodes/<id>.js` per episode, the search
 * index in chunks, long texts and screenshots — from the stores, into a {@link SiteSink}: a folder
 * for `engiloop report`, memory for `engiloop view`. Episodes are read and written one at a time, so
 * a run of any size is built in bounded memory.
 */
import {
  decodeEvent,
  type BlobStore,
  type EpisodeEvent,
  type EpisodeLog,
  type RunIndex,
  type SummaryStore,
} from '../../streams/index.js';
import { loadRun, type EpisodeSummary } from '../analysis/index.js';
import {
  REPORT_FORMAT,
  type EpisodeData,
  type EpisodeRow,
  type ReportData,
  type SearchEntry,
  type TraceSeries,
} from './format.js';
import { episodeData } from './episode.js';
import { runsData, type RunInput } from './runs.js';
import { TextFiles } from './texts.js';
import { traceSeries, type TraceEpisodeFn } from './trace.js';

/** Where a report's files go (paths relative to the report folder). */
export interface SiteSink {
  put(path: string, data: string | Uint8Array): Promise<void>;
}

/** The stores a report reads. */
export interface ReportStores {
  log: EpisodeLog;
  runs: RunIndex;
  summaries: SummaryStore;
  blobs: Pick<BlobStore, 'get'>;
}

/** A data script: what `engiloopData(key, …)` hands the pages. */
export const dataScript = (key: string, payload: unknown): string =>
  `engiloopData(${JSON.stringify(key)},${JSON.stringify(payload)});\n`;

/** Path of an episode's data file. */
const episodePath = (id: string): string => `data/episodes/${encodeURIComponent(id)}.js`;

const SEARCH_CHUNK_CHARS = 2_000_000;
const SEARCH_TEXT = 2_000;

/** The searchable texts of an episode: commands, outputs, the agent's text, observations. */
export function searchEntries(d: EpisodeData): SearchEntry[] {
  const out: SearchEntry[] = [];
  const add = (r: number, k: SearchEntry['k'], t: string) => {
    if (t.trim()) out.push({ e: d.id, r, k, t: t.slice(0, SEARCH_TEXT) });
  };
  for (const r of d.rounds) {
    if (r.observation) add(r.round, 'observation', r.observation.text.text);
    if (r.decision) add(r.round, 'agent', [r.decision.note ?? '', r.decision.raw.text].join('\n'));
    for (const a of r.actions) {
      add(r.round, 'command', a.label);
      add(r.round, 'stdout', a.stdout.text);
      add(r.round, 'stderr', a.stderr.text);
    }
  }
  return out;
}

/** What a build made. */
export interface SiteStats {
  episodes: number;
  files: number;
  bytes: number;
}

/** Builds report files into a sink, one episode at a time. */
export class SiteBuilder {
  private search: SearchEntry[] = [];
  private searchChars = 0;
  private chunks = 0;
  private shots = new Set<string>();
  readonly stats: SiteStats = { episodes: 0, files: 0, bytes: 0 };

  constructor(
    private readonly stores: ReportStores,
    private readonly sink: SiteSink,
    private readonly o: {
      engiloop: string;
      live: boolean;
      /** Collect the search index (the live view keeps its own). */ search?: boolean;
      /** Re-verify episodes that did not pass at each snapshot, for their verdict trace. */
      trace?: TraceEpisodeFn;
      /** Told when an episode could not be traced. */
      warn?: (line: string) => void;
    },
  ) {}

  private async put(path: string, data: string | Uint8Array): Promise<void> {
    await this.sink.put(path, data);
    this.stats.files++;
    this.stats.bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  }

  /** Reads a run's summaries (rebuilding missing ones) and the rows of its running episodes. */
  async loadRun(runId: string): Promise<RunInput & { pendingIds: string[] }> {
    const loaded = await loadRun(this.stores, runId);
    return {
      id: runId,
      record: await this.stores.runs.get(runId),
      summaries: loaded.summaries,
      running: [],
      pendingIds: loaded.pending,
    };
  }

  /**
   * Writes one episode's file (and its texts and screenshots); returns its data, or null for an
   * episode with no events yet (a run's later episodes before they start).
   */
  async episode(
    id: string,
    summary: EpisodeSummary | null,
    children: EpisodeData['family']['children'],
  ): Promise<EpisodeData | null> {
    const raw = await this.stores.log.readRaw(id);
    if (!raw.length) return null;
    const events = raw.map((r) => decodeEvent(r.data, { subject: r.subject, seq: r.seq }));
    const texts = new TextFiles();
    const seqs = raw.map((r) => r.seq);
    const findings = [...(summary?.modes ?? []), ...(summary?.judge?.added ?? [])];
    const trace = await this.traced(events, seqs);
    const outputs = await this.outputs(events);
    const d = episodeData(events, seqs, { findings, children, texts, outputs, ...(trace ? { trace } : {}) });
    for (const r of d.rounds) {
      const shot = r.observation?.screenshot;
      if (!shot?.file) continue;
      if (this.shots.has(shot.digest)) continue;
      try {
        await this.put(shot.file, await this.stores.blobs.get(shot.digest));
        this.shots.add(shot.digest);
      } catch {
        shot.file = null; // gone from the object store (collected): the page says so
      }
    }
    for (const [name, text] of texts.files)
      await this.put(`data/text/${name}.js`, dataScript(`text:${name}`, text));
    await this.put(episodePath(id), dataScript(`episode:${id}`, d));
    this.stats.episodes++;
    if (this.o.search === false) return d;
    for (const e of searchEntries(d)) {
      this.search.push(e);
      this.searchChars += e.t.length;
      if (this.searchChars >= SEARCH_CHUNK_CHARS) await this.flushSearch();
    }
    return d;
  }

  /** The whole outputs the log keeps in the object store (over 64 KiB), by digest; missing ones left out. */
  private async outputs(events: readonly EpisodeEvent[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const e of events) {
      if (e.type !== 'action.executed' || !e.result.blobs) continue;
      for (const d of [e.result.blobs.stdout, e.result.blobs.stderr])
        if (d && !out.has(d))
          await this.stores.blobs.get(d).then(
            (b) => out.set(d, b.toString('utf8')),
            () => undefined, // collected: the cut output stays
          );
    }
    return out;
  }

  /** The re-verified trace of an ended episode that did not pass and has snapshots; else undefined. */
  private async traced(events: EpisodeEvent[], seqs: number[]): Promise<TraceSeries[] | undefined> {
    if (!this.o.trace) return undefined;
    const end = events.at(-1);
    const verdict = events.findLast((e) => e.type === 'verification.completed');
    if (end?.type !== 'episode.ended' || end.status === 'infra_error') return undefined;
    if (verdict?.type === 'verification.completed' && verdict.passed) return undefined;
    if (!events.some((e) => e.type === 'workspace.snapshotted')) return undefined;
    try {
      const t = await this.o.trace(events, seqs);
      return t ? traceSeries(t) : undefined;
    } catch (e) {
      this.o.warn?.(`trace of ${(events[0] as { episodeId?: string }).episodeId}: ${(e as Error).message}`);
      return undefined;
    }
  }

  private async flushSearch(): Promise<void> {
    if (!this.search.length) return;
    await this.put(`data/search-${this.chunks}.js`, dataScript(`search:${this.chunks}`, this.search));
    this.chunks++;
    this.search = [];
    this.searchChars = 0;
  }

  /** Writes the remaining search chunk and `data/report.js`. */
  async finish(runs: readonly RunInput[], searchChunks?: number): Promise<ReportData> {
    await this.flushSearch();
    const report: ReportData = {
      format: REPORT_FORMAT,
      generatedAt: new Date().toISOString(),
      engiloop: this.o.engiloop,
      live: this.o.live,
      ...runsData(runs),
      searchChunks: searchChunks ?? this.chunks,
    };
    await this.put('data/report.js', dataScript('report', report));
    return report;
  }
}

/** The row of an episode that has not ended, from its page data (live view). */
export function runningRow(d: EpisodeData): EpisodeRow {
  const last = d.rounds[d.rounds.length - 1];
  return {
    id: d.id,
    runId: d.runId,
    taskId: d.taskId,
    agent: d.agent,
    status: 'running',
    score: null,
    passed: false,
    rounds: last?.round ?? 0,
    steps: d.rounds.reduce((n, r) => n + r.actions.length, 0),
    durationMs: last?.atMs ?? 0,
    facets: { domain: '', type: '', interface: d.interface, apps: [] },
    usage: null,
    modes: [],
    parent: d.family.parent,
  };
}

/** Children of each episode among `summaries` (forks made from it), by parent id. */
export function childrenOf(
  summaries: readonly EpisodeSummary[],
): Map<string, EpisodeData['family']['children']> {
  const out = new Map<string, EpisodeData['family']['children']>();
  for (const s of summaries)
    if (s.parent)
      out.set(s.parent.episodeId, [
        ...(out.get(s.parent.episodeId) ?? []),
        { episodeId: s.episodeId, round: s.parent.round },
      ]);
  return out;
}
