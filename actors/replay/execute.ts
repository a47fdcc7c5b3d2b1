/**
 * `replay --execute`: a fresh sandbox, the recorded agent outputs played back in order, and every
 * re-executed observation compared with the recorded one (exact after blanking declared volatile
 * parts). Reports the first divergent round with a diff, and an overall verdict.
 */
import type { ActionExecuted, AgentDecided, EpisodeEvent } from '../../streams/index.js';
import type { LoadedTask } from '../../tasks/index.js';
import type { Agent } from '../agents/index.js';
import { formatResult, runEpisode, type EpisodeDeps, type EpisodeResult } from '../episode/index.js';
import { firstDiff, normalizer } from '../episode/index.js';
import { compareScreenshots, DEFAULT_MAX_PIXEL_DIFF } from './screenshots.js';

/** Plays back recorded agent outputs by round; past the record it says DONE. */
class RecordedAgent implements Agent {
  readonly name: string;
  private readonly byRound = new Map<number, unknown>();
  constructor(name: string, decided: readonly AgentDecided[]) {
    this.name = name;
    for (const d of decided) this.byRound.set(d.round, d.raw);
  }
  decide(input: { round: number }): Promise<unknown> {
    return Promise.resolve(this.byRound.has(input.round) ? this.byRound.get(input.round) : { done: true });
  }
}

export interface Divergence {
  round: number;
  what: string;
  diff: string;
}

export interface ExecuteReport {
  verdict: 'identical' | 'diverged';
  firstDivergence: Divergence | null;
  roundsCompared: number;
  /** GUI episodes: the pixel-difference fraction of each round's screenshot. */
  screenshots: { round: number; diff: number }[];
  /** Original episode duration (first to last event) and the replay's. */
  originalMs: number;
  replay: EpisodeResult;
}

/** Compares two logs round by round; the first difference after normalisation, or null. */
export function compareLogs(
  recorded: readonly EpisodeEvent[],
  replayed: readonly EpisodeEvent[],
  volatile: readonly string[] = [],
): { divergence: Divergence | null; rounds: number } {
  const norm = normalizer(volatile);
  const obs = (es: readonly EpisodeEvent[]) => es.filter((e) => e.type === 'observation.recorded');
  const acts = (es: readonly EpisodeEvent[]) =>
    es.filter((e): e is ActionExecuted => e.type === 'action.executed');
  const [ro, po] = [obs(recorded), obs(replayed)];
  const [ra, pa] = [acts(recorded), acts(replayed)];
  let rounds = 0;
  for (let i = 0; i < Math.max(ro.length, po.length); i++) {
    const a = ro[i];
    const b = po[i];
    const round =
      a?.type === 'observation.recorded' ? a.round : b?.type === 'observation.recorded' ? b.round : i + 1;
    rounds = Math.max(rounds, round);
    if (!a || !b)
      return {
        divergence: {
          round,
          what: 'number of observations',
          diff: `recorded ${ro.length}, replayed ${po.length}`,
        },
        rounds,
      };
    const [ta, tb] = [
      norm(a.type === 'observation.recorded' ? a.text : ''),
      norm(b.type === 'observation.recorded' ? b.text : ''),
    ];
    if (ta !== tb) return { divergence: { round, what: 'observation', diff: firstDiff(ta, tb) }, rounds };
  }
  for (let i = 0; i < Math.max(ra.length, pa.length); i++) {
    const a = ra[i];
    const b = pa[i];
    if (!a || !b)
      return {
        divergence: {
          round: (a ?? b)!.round,
          what: 'number of actions',
          diff: `recorded ${ra.length}, replayed ${pa.length}`,
        },
        rounds,
      };
    const [ta, tb] = [norm(formatResult(a.action, a.result)), norm(formatResult(b.action, b.result))];
    if (ta !== tb)
      return {
        divergence: { round: a.round, what: `action ${a.index + 1} result`, diff: firstDiff(ta, tb) },
        rounds,
      };
  }
  return { divergence: null, rounds };
}

export interface ExecuteOptions {
  /** Reads an episode's events back (the replay's own log). */
  read: (episodeId: string) => Promise<EpisodeEvent[]>;
  episodeId: string;
  runId: string;
  artifactsDir: string;
  signal?: AbortSignal;
  /** GUI episodes: share of pixels a re-executed screenshot may differ by. Default 0.01. */
  maxPixelDiff?: number;
}

/**
 * The nonces sealed verifiers used in a recorded episode, handed out per criterion in the order
 * they were used (stage checks, then the final verification), so the replay names its verdict
 * channels the same way and its verdicts compare equal.
 */
function recordedSeals(events: readonly EpisodeEvent[]): (criterion: string) => string | undefined {
  const queue = new Map<string, string[]>();
  for (const e of events)
    if (e.type === 'stage.checked' || e.type === 'verification.completed')
      for (const v of e.verdicts)
        if (v.seal !== undefined) queue.set(v.criterion, [...(queue.get(v.criterion) ?? []), v.seal]);
  return (criterion) => queue.get(criterion)?.shift();
}

/** Re-executes the recorded episode `events` of task `lt` and compares. */
export async function replayExecute(
  events: readonly EpisodeEvent[],
  lt: LoadedTask,
  deps: EpisodeDeps,
  o: ExecuteOptions,
): Promise<ExecuteReport> {
  const decided = events.filter((e): e is AgentDecided => e.type === 'agent.decided');
  const agent = new RecordedAgent(
    `replay:${events[0]?.type === 'episode.started' ? events[0].agent : '?'}`,
    decided,
  );
  const replay = await runEpisode(lt, deps, {
    episodeId: o.episodeId,
    runId: o.runId,
    agent,
    artifactsDir: o.artifactsDir,
    seals: recordedSeals(events),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const replayed = await o.read(o.episodeId);
  const text = compareLogs(events, replayed, lt.task.volatile);
  const pixels = await compareScreenshots(events, replayed, (d) => deps.blobs.get(d), o.maxPixelDiff);
  const max = o.maxPixelDiff ?? DEFAULT_MAX_PIXEL_DIFF;
  const shot: Divergence | null = pixels.first
    ? {
        round: pixels.first.round,
        what: 'screenshot',
        diff: `${(pixels.first.diff * 100).toFixed(2)} % of pixels differ (threshold ${(max * 100).toFixed(2)} %)`,
      }
    : null;
  const divergence =
    text.divergence && shot
      ? shot.round < text.divergence.round
        ? shot
        : text.divergence
      : (text.divergence ?? shot);
  return {
    verdict: divergence ? 'diverged' : 'identical',
    firstDivergence: divergence,
    roundsCompared: text.rounds,
    screenshots: pixels.perRound,
    originalMs: (events.at(-1)?.at ?? 0) - (events[0]?.at ?? 0),
    replay,
  };
}
