/**
 * An ended episode's summary (see streams/summaries.ts): its result, its failure modes, its usage
 * and durations, and the task's facets for breakdowns. Built from the log alone.
 */
import { resultFromLog } from '../episode/index.js';
import {
  decodeEvent,
  type EpisodeEvent,
  type EpisodeLog,
  type EpisodeSummaryRecord,
  type SummaryStore,
} from '../../streams/index.js';
import type { Task } from '../../tasks/index.js';
import { DETECTORS_VERSION, detect } from './detect.js';
import { feedbackPatterns } from './feedback-patterns.js';
import { TAXONOMY_VERSION } from './taxonomy.js';
import { episodeView } from './view.js';

/** A summary as built (the store adds type and version). */
export type EpisodeSummary = Omit<EpisodeSummaryRecord, 'type' | 'v'>;

/**
 * The apps a task is about: its sandboxes' images (`engiloop/freecad` → `freecad`), and for the
 * general images (`cli`, `desktop`) the app a desktop launches and the apps its reference solution
 * runs (feedback-patterns.yaml).
 */
function taskApps(task: Task): string[] {
  const apps = new Set<string>();
  const general = new Set(['cli', 'desktop']);
  for (const sb of Object.values(task.environment.sandboxes)) {
    const name = sb.image.replace(/^.*\//, '').replace(/:.*$/, '');
    const launch = sb.desktop?.launch?.trim().split(/\s+/)[0]?.replace(/^.*\//, '');
    if (!general.has(name)) apps.add(name);
    else if (launch) apps.add(launch.toLowerCase());
  }
  const commands = task.reference
    .flatMap((step) => (Array.isArray(step) ? step : [step]))
    .flatMap((a) => (typeof a === 'object' && a !== null && 'command' in a ? [String(a.command)] : []));
  for (const app of feedbackPatterns()) if (commands.some((c) => app.commands.test(c))) apps.add(app.app);
  return [...apps].sort();
}

/**
 * The summary of an ended episode from its events (and their stream sequences); null while it has
 * not ended.
 */
export function summarizeEpisode(
  events: readonly EpisodeEvent[],
  seqs?: readonly number[],
): EpisodeSummary | null {
  const result = resultFromLog(events);
  if (!result) return null;
  const view = episodeView(events, seqs);
  const first = events[0]!;
  const last = events.at(-1)!;
  const runId = first.type === 'episode.started' ? first.runId : '';
  return {
    episodeId: result.episodeId,
    runId,
    taskId: result.taskId,
    agent: result.agent,
    facets: {
      domain: view.task.domain,
      type: view.task.type,
      interface: view.task.interface,
      apps: taskApps(view.task),
    },
    status: result.status,
    score: result.score,
    passed: result.passed,
    rounds: result.rounds,
    steps: events.filter((e) => e.type === 'action.executed').length,
    events: events.length,
    startedAt: first.at,
    endedAt: last.at,
    durationMs: result.durationMs,
    usage: result.usage,
    modes: detect(view),
    taxonomy: TAXONOMY_VERSION,
    detectors: DETECTORS_VERSION,
    ...(first.type === 'episode.started' && first.parent ? { parent: first.parent } : {}),
  };
}

/** Reads an episode's log (with its stream sequences) and summarizes it; null while it runs. */
export async function summarizeStored(log: EpisodeLog, episodeId: string): Promise<EpisodeSummary | null> {
  const raw = await log.readRaw(episodeId);
  const events = raw.map((r) => decodeEvent(r.data, { subject: r.subject, seq: r.seq }));
  return summarizeEpisode(
    events,
    raw.map((r) => r.seq),
  );
}

/**
 * Writes the summary of an ended episode. Never throws: a summary is derived data that `analyze`
 * recomputes from the log when it is missing, so a failure is returned for the caller to report.
 */
export async function recordSummary(
  log: EpisodeLog,
  store: SummaryStore,
  episodeId: string,
): Promise<{ ok: true; summary: EpisodeSummary } | { ok: false; error: string }> {
  try {
    const s = await summarizeStored(log, episodeId);
    if (!s) return { ok: false, error: `episode ${episodeId} has not ended` };
    await store.put(s);
    return { ok: true, summary: s };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}
