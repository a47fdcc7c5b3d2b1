/**
 * Episode summaries on `ENGILOOP_SUMMARIES`: one JSON record per episode on
 * `engiloop.summary.<runId>.<episodeId>`, written when the episode ends (score, failure modes,
 * tokens, cost, durations), so analysing a run of 1,000 episodes reads 1,000 small records instead
 * of refolding every log. A summary is derived data: the log stays the truth, and a newer analysis
 * may write a newer summary (the last one on the subject wins).
 *
 * WARNING: stored format; `v` is bumped on a change and readers handle every older `v`.
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { CodecError } from './errors.js';
import type { AgentCallRecord, EpisodeStatus } from './events.js';
import { retryTimeouts } from './nats-faults.js';
import { ensureStreams, SUMMARIES_STREAM, SUMMARY_SUBJECT_PREFIX, type StreamsOptions } from './log.js';
import { readSubject, validateId } from './subjects.js';

/** Schema version of summary records. */
const SUMMARY_VERSION = 1 as const;

/** One failure mode found in an episode (see actors/analysis/taxonomy.ts). */
export interface FindingRecord {
  /** `category.mode`, from the taxonomy of version `taxonomy`. */
  mode: string;
  /** `agent`, `task`, `harness` or `infrastructure`. */
  owner: string;
  /** Stream sequence numbers of the events that show it. */
  seqs: number[];
  /** Rounds of those events. */
  rounds: number[];
  /** One line, with the numbers. */
  explanation: string;
  /** Detector name. */
  detector: string;
}

/** The summary of one ended episode. */
export interface EpisodeSummaryRecord {
  type: 'episode.summary';
  v: number;
  episodeId: string;
  runId: string;
  taskId: string;
  agent: string;
  /** The task's facets, as recorded in the log, for breakdowns. */
  facets: { domain: string; type: string; interface: string; apps: string[] };
  status: EpisodeStatus;
  /** Null for infra_error (never scored). */
  score: number | null;
  passed: boolean;
  rounds: number;
  /** Actions executed. */
  steps: number;
  events: number;
  /** ms since the epoch of `episode.started` / `episode.ended`. */
  startedAt: number;
  endedAt: number;
  durationMs: number;
  /** Model usage summed over the episode; null for agents without a model. */
  usage: {
    calls: number;
    input: number;
    output: number;
    cached: number;
    costUsd: number | null;
    retries: number;
    latencyMs: number;
  } | null;
  modes: FindingRecord[];
  /** Versions of the taxonomy and of the detectors that found `modes`. */
  taxonomy: number;
  detectors: number;
  /** Set for a forked episode: the episode and round it branched from. */
  parent?: { episodeId: string; round: number };
  /**
   * Set when the optional LLM judge ran (`analyze <episode> --judge`): the modes it added (detector
   * `llm-judge`; never merged into `modes`, which stay deterministic), what it proposed that was
   * rejected and why, and its call, recorded as an agent call is. Optional: absent in older records.
   */
  judge?: {
    spec: string;
    added: FindingRecord[];
    rejected: { mode: string; why: string }[];
    unreadable: string | null;
    call: AgentCallRecord;
  };
}

/** Summaries of episodes. */
export class SummaryStore {
  constructor(
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
  ) {}

  /** Builds the JetStream clients for `nc` and ensures the streams exist. */
  static async open(nc: NatsConnection, o: StreamsOptions = {}): Promise<SummaryStore> {
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, o);
    return new SummaryStore(jetstream(nc), jsm);
  }

  /** Stores `rec` (replacing an older summary of the same episode for readers). */
  async put(rec: Omit<EpisodeSummaryRecord, 'type' | 'v'>): Promise<EpisodeSummaryRecord> {
    const full: EpisodeSummaryRecord = { type: 'episode.summary', v: SUMMARY_VERSION, ...rec };
    await retryTimeouts(() => this.js.publish(subject(rec.runId, rec.episodeId), JSON.stringify(full)));
    return full;
  }

  /** The latest summary of each episode of `runId` that has one, by episode id. */
  async forRun(runId: string): Promise<Map<string, EpisodeSummaryRecord>> {
    const recs = await retryTimeouts(() =>
      readSubject(
        this.js,
        this.jsm,
        SUMMARIES_STREAM,
        `${SUMMARY_SUBJECT_PREFIX}${validateId('run', runId)}.>`,
      ),
    );
    const out = new Map<string, EpisodeSummaryRecord>();
    for (const r of recs) {
      const rec = decode(r.data, r.seq);
      out.set(rec.episodeId, rec);
    }
    return out;
  }
}

function subject(runId: string, episodeId: string): string {
  return `${SUMMARY_SUBJECT_PREFIX}${validateId('run', runId)}.${validateId('episode', episodeId)}`;
}

function decode(data: Uint8Array, seq: number): EpisodeSummaryRecord {
  let rec: EpisodeSummaryRecord;
  try {
    rec = JSON.parse(Buffer.from(data).toString('utf8')) as EpisodeSummaryRecord;
  } catch (err) {
    throw new CodecError('EVENT_DECODE', `summary at ENGILOOP_SUMMARIES seq ${seq}: not JSON`, {
      cause: err,
    });
  }
  if (rec.type !== 'episode.summary' || rec.v !== SUMMARY_VERSION)
    throw new CodecError(
      'EVENT_DECODE',
      `summary at ENGILOOP_SUMMARIES seq ${seq}: unknown type or version ${rec.v}`,
    );
  return rec;
}
