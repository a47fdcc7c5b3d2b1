/**
 * Stage checks: a deliverable with a `stage` is verified as soon as it appears (or changes) in its
 * sandbox, after the round that made it, with the criteria that read it. Results are
 * `stage.checked` events; a failed stage marked `halt_on_fail` ends the episode (the machine's
 * stage rule), a stage with `after` is only verified once that stage scored enough, and stages with
 * a `weight` feed the final score.
 */
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sha256Hex } from '../../streams/index.js';
import type { EpisodeEvent, EventDraft, StageChecked } from '../../streams/index.js';
import { collectDeliverable, writeRefusals } from './collect.js';
import type { EffectScope } from './scope.js';
import { fileStat } from './handoff.js';
import { latestStages } from './stage-list.js';
import { defaultSandbox, stagesOf, type Task } from '../../tasks/index.js';

const same = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/**
 * Checks every stage whose deliverables are all present and differ from its last check, emitting
 * one `stage.checked` each through `emit`. Stops after a halting result. Returns how many it emitted.
 */
export async function checkStages(
  s: EffectScope,
  round: number,
  events: readonly EpisodeEvent[],
  emit: (d: EventDraft) => Promise<void>,
): Promise<number> {
  const { task } = s.lt;
  const latest = latestStages(events);
  const stamps = (s.stageStamps ??= new Map<string, string>());
  const first = defaultSandbox(task);
  let n = 0;
  for (const st of stagesOf(task)) {
    const ds = task.deliverables.filter((d) => d.stage === st.name);
    const prev = latest.get(st.name);
    const dep = st.after === undefined ? undefined : latest.get(st.after);
    const blocked = st.after !== undefined && (!dep || dep.score < st.min_score);
    // A blocked stage whose dependency now scores enough is checked again, changed or not.
    const recheck = !!prev?.blockedBy && !blocked;
    // This runs after every round: a stat per file first, and the files are read only when one
    // changed size or time since the last look (deliverables in a named sandbox).
    let stamp: string | null = null;
    if (ds.every((d) => d.sandbox !== '*')) {
      const parts: string[] = [];
      for (const d of ds) {
        const f = await fileStat(s.sandboxes.get(d.sandbox ?? first)!, d.path);
        if (!f) break;
        parts.push(`${d.path}:${f.size}:${f.mtime}`);
      }
      if (parts.length < ds.length) continue; // not all there yet
      stamp = parts.join('|');
      if (stamps.get(st.name) === stamp && !recheck) continue;
    }
    // Each deliverable goes to a scratch folder first; the check's own folder is made only if
    // something changed since the last check.
    const scratch = join(s.opts.artifactsDir, '.stages', st.name, 'incoming');
    const artifacts: Record<string, string> = {};
    const refusals: Record<string, string> = {};
    let present = 0;
    for (const d of ds) {
      const got = await collectDeliverable(s, d, join(scratch, d.path));
      if (got.kind === 'missing') break;
      present++;
      if (got.kind === 'stored') artifacts[d.path] = got.digest;
      else {
        refusals[d.path] = got.refusal.message;
        artifacts[d.path] = `refused:${sha256Hex(Buffer.from(got.refusal.message))}`;
      }
    }
    if (present < ds.length) continue; // not all there yet
    if (stamp) stamps.set(st.name, stamp);
    if (prev && same(prev.artifacts, artifacts) && !recheck) continue;

    let draft: Extract<EventDraft, { type: 'stage.checked' }>;
    if (blocked) {
      draft = {
        type: 'stage.checked',
        stage: st.name,
        round,
        artifacts,
        verdicts: [],
        score: 0,
        passed: false,
        blockedBy: { stage: st.after!, score: dep?.score ?? null, min: st.min_score },
        halt: st.halt_on_fail,
      };
    } else {
      const dir = join(s.opts.artifactsDir, '.stages', st.name, `r${round}`);
      // Only the latest check's files stay on the host (every version is in the object store, within
      // the episode's store budget): a deliverable rewritten every round cannot fill the disk.
      for (const old of await readdir(dirname(dir)).catch(() => [] as string[]))
        if (/^r\d+$/.test(old)) await rm(join(dirname(dir), old), { recursive: true, force: true });
      await mkdir(dirname(dir), { recursive: true });
      await rename(scratch, dir).catch(() => mkdir(dir, { recursive: true }));
      await writeRefusals(dir, refusals);
      const paths = new Set(ds.map((d) => d.path));
      const criteria = task.criteria.filter((c) => c.deliverable !== undefined && paths.has(c.deliverable));
      const scoring = criteria.some((c) => c.role === 'quality') ? 'quantitative' : 'binary';
      const v =
        criteria.length === 0
          ? { verdicts: [], score: 1, passed: true } // a stage with no criteria passes by appearing
          : await s.deps.verify(
              { ...s.lt, task: { ...task, criteria, deliverables: ds, scoring } },
              {
                artifactsDir: dir,
                runTool: s.deps.runTool,
                ...(s.opts.signal ? { signal: s.opts.signal } : {}),
                ...(s.opts.seals ? { seal: s.opts.seals } : {}),
              },
            );
      draft = {
        type: 'stage.checked',
        stage: st.name,
        round,
        artifacts,
        verdicts: v.verdicts,
        score: v.score,
        passed: v.passed,
        halt: st.halt_on_fail && !v.passed,
      };
    }
    await emit(draft);
    latest.set(st.name, { ...draft, v: 0, at: 0 });
    n++;
    if (draft.halt) break;
  }
  return n;
}

/**
 * The final score with weighted stages mixed in: (1 − Σw) × final + Σ w × stage score; passed only
 * if the final criteria and every weighted stage passed. Unchanged when no stage has a weight.
 */
export function mixStages(
  task: Task,
  latest: ReadonlyMap<string, StageChecked>,
  final: { score: number; passed: boolean },
): {
  score: number;
  passed: boolean;
  stages?: NonNullable<Extract<EventDraft, { type: 'verification.completed' }>['stages']>;
} {
  const weighted = stagesOf(task).filter((st) => st.weight > 0);
  if (weighted.length === 0) return final;
  const weights: Record<string, { weight: number; score: number; passed: boolean }> = {};
  let w = 0;
  let mixed = 0;
  let passed = final.passed;
  for (const st of weighted) {
    const r = latest.get(st.name);
    weights[st.name] = { weight: st.weight, score: r?.score ?? 0, passed: r?.passed ?? false };
    w += st.weight;
    mixed += st.weight * (r?.score ?? 0);
    passed &&= r?.passed ?? false;
  }
  return { score: (1 - w) * final.score + mixed, passed, stages: { weights, finalScore: final.score } };
}
