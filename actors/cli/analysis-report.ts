/** The text of `engiloop analyze` and `engiloop compare`. */
import type {
  EpisodeSummary,
  Finding,
  JudgeResult,
  RunAnalysis,
  RunComparison,
  ScoreRow,
} from '../analysis/index.js';
import { fmtMs, table } from './table.js';

const score = (x: number | null) => (x === null ? '—' : x.toFixed(1));
const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(0)} %`);
const p = (x: number) => (x < 0.001 ? '< 0.001' : x.toFixed(3));

function scoreTable(title: string, rows: readonly ScoreRow[]): string {
  return `${title}\n${table(
    ['', 'tasks', 'episodes', 'EngiScore', '95 % CI', 'passed'],
    rows.map((r) => [
      r.key,
      String(r.tasks),
      String(r.episodes),
      score(r.engiScore),
      r.low === null ? '—' : `${score(r.low)}–${score(r.high)}`,
      pct(r.passRate),
    ]),
  )}`;
}

/** The report of one or more runs. */
export function analysisReport(a: RunAnalysis, notes: string[]): string {
  const out: string[] = [];
  const o = a.overall;
  out.push(
    `runs ${a.runs.join(', ')}: ${a.episodes} episode(s), ${a.scored} scored, ${a.infraErrors} infra_error (not scored)`,
    `EngiScore ${score(o.engiScore)} (95 % CI ${o.low === null ? '—' : `${score(o.low)}–${score(o.high)}`}, bootstrap over tasks), passed ${pct(o.passRate)}`,
    ...notes,
    ...a.forks.map((f) => `${f.episodeId} is a fork of ${f.parent.episodeId} at round ${f.parent.round}`),
    '',
    scoreTable('by domain', a.by.domain),
    '',
    scoreTable('by task type', a.by.type),
    '',
    scoreTable('by interface', a.by.interface),
    '',
    scoreTable('by app', a.by.app),
  );
  if (a.repeats) {
    const r = a.repeats;
    out.push(
      '',
      `repeats: pass@${r.k} ${pct(r.overall?.passAtK ?? null)}, pass^${r.k} ${pct(r.overall?.passHatK ?? null)} (unbiased, mean over tasks); verdict flips on ${r.flips.length} task(s)${r.flips.length ? `: ${r.flips.join(', ')}` : ''}`,
      table(
        ['task', 'n', 'passed', `pass@${r.k}`, `pass^${r.k}`, 'score variance'],
        Object.entries(r.perTask).map(([t, x]) => [
          t,
          String(x.n),
          String(x.c),
          pct(x.passAtK),
          pct(x.passHatK),
          (r.variance[t] ?? 0).toFixed(3),
        ]),
      ),
    );
  }
  const own = a.owners;
  out.push(
    '',
    `failure modes (episodes with at least one): agent ${own.agent}, task ${own.task}, harness ${own.harness}, infrastructure ${own.infrastructure}`,
    a.modes.length
      ? table(
          ['mode', 'owner', 'episodes', 'tasks'],
          a.modes.map((m) => [m.mode, m.owner, String(m.episodes), String(m.tasks)]),
        )
      : '(none)',
    '',
    'usage by agent',
    usageTable(a.usage.byAgent),
    '',
    'usage by task',
    usageTable(a.usage.byTask),
  );
  return out.join('\n');
}

function usageTable(rows: RunAnalysis['usage']['byAgent']): string {
  return table(
    ['', 'episodes', 'tokens in', 'out', 'cached', 'cost', 'steps', 'rounds', 'time'],
    rows.map((r) => [
      r.key,
      String(r.episodes),
      String(r.input),
      String(r.output),
      String(r.cached),
      r.costUsd === null ? '?' : `$${r.costUsd.toFixed(4)}`,
      String(r.steps),
      String(r.rounds),
      fmtMs(r.durationMs),
    ]),
  );
}

/** The optional judge's part of an episode report. */
function judgeText(j: JudgeResult | null): string {
  if (!j) return '';
  const c = j.call;
  const lines = [
    '',
    `LLM judge ${c.provider}:${c.model} (${c.usage.input} tokens in, ${c.usage.output} out, ${c.costUsd === null ? 'cost n/a' : `$${c.costUsd.toFixed(4)}`}, ${c.retries} retries; exchanges ${c.exchanges.slice(0, 12)}): it never overrides the findings above`,
  ];
  if (j.unreadable) lines.push(`its answer could not be read: ${j.unreadable}`);
  if (j.added.length)
    lines.push(
      table(
        ['added mode', 'owner', 'rounds', 'events (seq)', 'explanation'],
        j.added.map((f) => [f.mode, f.owner, f.rounds.join(','), f.seqs.join(','), f.explanation]),
      ),
    );
  else lines.push('it added no mode');
  for (const r of j.rejected) lines.push(`rejected ${r.mode}: ${r.why}`);
  return lines.join('\n');
}

/** One episode's failure modes, with the evidence (and the optional judge's additions). */
export function episodeReport(
  s: EpisodeSummary | null,
  episodeId: string,
  findings: readonly Finding[],
  judge: JudgeResult | null = null,
): string {
  const head = s
    ? `episode ${episodeId} (task ${s.taskId}, agent ${s.agent}): ${s.status}, score ${s.score === null ? '—' : s.score.toFixed(3)}, ${s.rounds} round(s)`
    : `episode ${episodeId}: still running`;
  const family = s?.parent
    ? `\nforked from ${s.parent.episodeId} at the end of round ${s.parent.round} (engiloop analyze ${s.parent.episodeId})`
    : '';
  if (findings.length === 0) return `${head}${family}\nno failure modes found${judgeText(judge)}`;
  return `${head}${family}\n${table(
    ['mode', 'owner', 'rounds', 'events (seq)', 'explanation'],
    findings.map((f) => [f.mode, f.owner, f.rounds.join(','), f.seqs.join(','), f.explanation]),
  )}\n\nsee an event: engiloop events ${episodeId} --json | grep '"seq":<n>,'${judgeText(judge)}`;
}

/** The comparison of two runs. */
export function comparisonReport(c: RunComparison): string {
  const d = c.score;
  const out = [
    `run ${c.b} against ${c.a}: ${c.tasks.length} task(s) in both${c.onlyA.length ? `; only in ${c.a}: ${c.onlyA.join(', ')}` : ''}${c.onlyB.length ? `; only in ${c.b}: ${c.onlyB.join(', ')}` : ''}`,
    d
      ? `EngiScore difference ${d.meanDiff >= 0 ? '+' : ''}${d.meanDiff.toFixed(1)} (95 % CI ${d.low.toFixed(1)} to ${d.high.toFixed(1)}, paired bootstrap over tasks, p = ${p(d.pValue)})`
      : 'EngiScore difference: no task scored in both',
    `fixed ${c.fixed.length}${c.fixed.length ? ` (${c.fixed.join(', ')})` : ''}, broken ${c.broken.length}${c.broken.length ? ` (${c.broken.join(', ')})` : ''}; McNemar exact p = ${p(c.mcnemar.pValue)}`,
    '',
    table(
      ['task', c.a, c.b, 'delta', 'verdict'],
      c.tasks.map((t) => [
        t.taskId,
        t.a.toFixed(3),
        t.b.toFixed(3),
        `${t.delta >= 0 ? '+' : ''}${t.delta.toFixed(3)}`,
        t.passedA === t.passedB ? (t.passedA ? 'pass' : 'fail') : t.passedB ? 'fixed' : 'broken',
      ]),
    ),
    '',
    'failure modes (episodes)',
    c.modes.length
      ? table(
          ['mode', c.a, c.b, 'delta', 'share change'],
          c.modes.map((m) => [
            m.mode,
            String(m.a),
            String(m.b),
            `${m.delta >= 0 ? '+' : ''}${m.delta}`,
            `${m.shareDelta >= 0 ? '+' : ''}${(m.shareDelta * 100).toFixed(0)} pts`,
          ]),
        )
      : '(none in either run)',
  ];
  return out.join('\n');
}
