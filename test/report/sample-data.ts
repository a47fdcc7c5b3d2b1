/**
 * A realistic report for the page tests and the page bench, typed by actors/report/format.ts: two
 * agents × five tasks (one repeated twice), a two-sandbox workflow episode whose hand-off a failing
 * stage checked, a GUI episode with screenshots (a real PNG) and click/drag actions, findings citing
 * rounds, a fork, a long output cut into a `text:` file, hostile text, a 1,000-round episode, an
 * infrastructure error, and the search index.
 */
import {
  REPORT_FORMAT,
  type EpisodeData,
  type EpisodeRow,
  type ReportData,
  type RunData,
  type ScoreData,
  type SearchEntry,
  type UsageData,
} from '../../actors/report/format.js';
import { forkEpisode, guiEpisode, longEpisode, workflowEpisode } from './sample-episodes.js';
import { AGENTS, SAMPLE, TASKS, episode, round, samplePng, shell } from './sample-parts.js';

export { SAMPLE } from './sample-parts.js';

/** Everything a sample site holds. */
export interface SampleData {
  report: ReportData;
  episodes: EpisodeData[];
  search: SearchEntry[][];
  texts: Record<string, string>;
  files: Record<string, Buffer>;
}

/** Options: `rows` adds overview rows (no episode file) up to that many episodes, for the bench. */
export interface SampleOptions {
  rows?: number;
  longRounds?: number;
}

function plain(taskId: string, agent: string, rep: number): EpisodeData {
  const ok = (taskId.length + agent.length + rep) % 3 !== 0;
  const id = `ep-${taskId}-${agent.replace(/\W+/g, '')}-${rep}`;
  const infra = taskId === 'freecad-hinge' && agent === 'scripted';
  const rounds = [1, 2, 3].map((r) =>
    round(
      r,
      [
        shell(
          0,
          'cad',
          `openscad -o plate.stl plate.scad # ${taskId} r${r}`,
          `Rendered ${taskId} in ${r * 0.4} s`,
        ),
      ],
      `listing round ${r}`,
      !ok && r === 3 ? ['ambiguous_task'] : [],
      r === 3 ? 'done' : 'actions',
    ),
  );
  const e = episode(
    {
      id,
      taskId,
      agent,
      score: infra ? null : ok ? 1 : 0.25,
      passed: ok && !infra,
      status: infra ? 'infra_error' : ok ? 'passed' : 'failed',
      interface: 'cli',
    },
    { sandboxes: ['cad'], rounds },
  );
  if (infra)
    return {
      ...e,
      error: 'sandbox lost: container exited 137',
      verification: null,
      findings: [
        {
          mode: 'sandbox_lost',
          owner: 'infrastructure',
          seqs: [],
          rounds: [3],
          explanation: 'container killed (OOM)',
          detector: 'infra',
        },
      ],
    };
  if (!ok)
    e.findings = [
      {
        mode: 'ambiguous_task',
        owner: 'task',
        seqs: [],
        rounds: [3],
        explanation: 'the statement does not say which face',
        detector: 'judge',
      },
    ];
  return e;
}

function row(e: EpisodeData): EpisodeRow {
  return {
    id: e.id,
    runId: e.runId,
    taskId: e.taskId,
    agent: e.agent,
    status: e.status,
    score: e.score,
    passed: e.passed,
    rounds: e.rounds.length,
    steps: e.rounds.reduce((n, r) => n + r.actions.length, 0),
    durationMs: e.rounds.length * 4100,
    facets: {
      domain: e.taskId.split('-')[0] ?? 'cad',
      type: e.interface === 'gui' ? 'gui' : 'modeling',
      interface: e.interface,
      apps: [e.taskId.split('-')[0] ?? 'openscad'],
    },
    usage: {
      input: e.rounds.length * 1500,
      output: e.rounds.length * 150,
      cached: e.rounds.length * 800,
      costUsd: e.rounds.length * 0.0031,
      retries: 0,
    },
    modes: [...new Set(e.findings.map((f) => f.mode))],
    parent: e.family.parent,
  };
}

function score(key: string, rows: EpisodeRow[]): ScoreData {
  const scored = rows.filter((r) => r.score !== null);
  const mean = scored.length ? (100 * scored.reduce((a, r) => a + (r.score ?? 0), 0)) / scored.length : null;
  return {
    key,
    tasks: new Set(rows.map((r) => r.taskId)).size,
    episodes: rows.length,
    engiScore: mean,
    low: mean === null ? null : Math.max(0, mean - 9),
    high: mean === null ? null : Math.min(100, mean + 7),
    passRate: scored.length ? scored.filter((r) => r.passed).length / scored.length : null,
  };
}

function groups(rows: EpisodeRow[], by: (r: EpisodeRow) => string[]): ScoreData[] {
  const m = new Map<string, EpisodeRow[]>();
  for (const r of rows) for (const k of by(r)) m.set(k, [...(m.get(k) ?? []), r]);
  return [...m].sort().map(([k, v]) => score(k, v));
}

function usage(key: string, rows: EpisodeRow[]): UsageData {
  const sum = (f: (r: EpisodeRow) => number) => rows.reduce((a, r) => a + f(r), 0);
  return {
    key,
    episodes: rows.length,
    input: sum((r) => r.usage?.input ?? 0),
    output: sum((r) => r.usage?.output ?? 0),
    cached: sum((r) => r.usage?.cached ?? 0),
    costUsd: sum((r) => r.usage?.costUsd ?? 0),
    steps: sum((r) => r.steps),
    rounds: sum((r) => r.rounds),
    durationMs: sum((r) => r.durationMs),
  };
}

function run(rows: EpisodeRow[]): RunData {
  const plate = rows.filter((r) => r.taskId === 'openscad-plate');
  const modes = new Map<string, EpisodeRow[]>();
  for (const r of rows) for (const m of r.modes) modes.set(m, [...(modes.get(m) ?? []), r]);
  return {
    id: SAMPLE.run,
    startedAt: Date.UTC(2026, 11, 1, 9, 0, 0),
    finishedAt: Date.UTC(2026, 11, 1, 9, 42, 10),
    pending: 0,
    episodes: rows.length,
    scored: rows.filter((r) => r.score !== null).length,
    infraErrors: rows.filter((r) => r.status === 'infra_error').length,
    overall: score('overall', rows),
    by: {
      domain: groups(rows, (r) => [r.facets.domain]),
      type: groups(rows, (r) => [r.facets.type]),
      interface: groups(rows, (r) => [r.facets.interface]),
      app: groups(rows, (r) => r.facets.apps),
    },
    repeats: {
      k: 2,
      overall: { passAtK: 0.8, passHatK: 0.6 },
      byTask: [
        {
          taskId: 'openscad-plate',
          n: plate.length,
          c: plate.filter((r) => r.passed).length,
          passAtK: 1,
          passHatK: 0.5,
        },
      ],
      flips: ['openscad-plate'],
      variance: { 'openscad-plate': 0.1875 },
    },
    modes: [...modes].map(([mode, rs]) => ({
      mode,
      owner: SAMPLE.taxonomy[mode]?.owner ?? 'agent',
      episodes: rs.length,
      tasks: new Set(rs.map((r) => r.taskId)).size,
    })),
    owners: { agent: 3, task: 2, infrastructure: 1 },
    usage: {
      byAgent: AGENTS.map((a) =>
        usage(
          a,
          rows.filter((r) => r.agent === a),
        ),
      ),
      byTask: TASKS.map((t) =>
        usage(
          t,
          rows.filter((r) => r.taskId === t),
        ),
      ),
    },
  };
}

function searchOf(episodes: EpisodeData[]): SearchEntry[] {
  const out: SearchEntry[] = [];
  for (const e of episodes)
    for (const r of e.rounds) {
      if (r.observation) out.push({ e: e.id, r: r.round, k: 'observation', t: r.observation.text.text });
      if (r.decision) out.push({ e: e.id, r: r.round, k: 'agent', t: r.decision.raw.text });
      for (const a of r.actions) {
        out.push({ e: e.id, r: r.round, k: 'command', t: a.label });
        if (a.stdout.text) out.push({ e: e.id, r: r.round, k: 'stdout', t: a.stdout.text });
        if (a.stderr.text) out.push({ e: e.id, r: r.round, k: 'stderr', t: a.stderr.text });
      }
    }
  return out;
}

/** Builds the sample report. */
export function sampleData(opts: SampleOptions = {}): SampleData {
  const texts: Record<string, string> = {};
  const episodes: EpisodeData[] = [];
  for (const t of TASKS.filter((t) => !t.startsWith('gui') && !t.startsWith('workflow')))
    for (const a of AGENTS)
      for (let rep = 1; rep <= (t === 'openscad-plate' ? 2 : 1); rep++) episodes.push(plain(t, a, rep));
  episodes.push(workflowEpisode(texts), guiEpisode(), forkEpisode(), longEpisode(opts.longRounds ?? 1000));
  const rows = episodes.map(row);
  for (let i = rows.length; i < (opts.rows ?? 0); i++) {
    const base = rows[i % episodes.length]!;
    rows.push({
      ...base,
      id: `ep-bulk-${i}`,
      taskId: `bulk-task-${Math.floor(i / 4)}`,
      agent: AGENTS[i % 2]!,
      score: (i % 5) / 4,
      passed: i % 5 === 4,
    });
  }
  const all = searchOf(episodes);
  const search: SearchEntry[][] = [];
  for (let i = 0; i < all.length; i += 1000) search.push(all.slice(i, i + 1000));
  const report: ReportData = {
    format: REPORT_FORMAT,
    generatedAt: '2026-12-01T10:00:00Z',
    engiloop: '0.1.0',
    live: false,
    runs: [run(rows)],
    comparison: null,
    episodes: rows,
    taxonomy: SAMPLE.taxonomy,
    searchChunks: search.length,
  };
  return {
    report,
    episodes,
    search,
    texts,
    files: { [SAMPLE.shot]: samplePng(SAMPLE.shotSize.width, SAMPLE.shotSize.height) },
  };
}
