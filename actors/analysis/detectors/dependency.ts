/**
 * Cross-application dependencies lost: the break that `attribute` finds (a needed artifact never
 * handed off, a stale or wrong-format hand-off), and stages checked on an input older than what its
 * producer had made by then (the consumed artifacts).
 */
import { attribute, consumedBy } from '../../episode/index.js';
import { stagesOf } from '../../../tasks/index.js';
import type { Finding, ModeId } from '../taxonomy.js';
import { finding, ofType, type Detector, type EpisodeView, type Located } from '../view.js';

const CAUSES: Partial<Record<string, ModeId>> = {
  lost_handoff: 'dependency.handoff_missing',
  stale_handoff: 'dependency.handoff_stale',
  wrong_format: 'dependency.handoff_wrong_format',
};

function broken(v: EpisodeView): Finding[] {
  const a = attribute(v.events.map((l) => l.event));
  const mode = a ? CAUSES[a.cause] : undefined;
  if (!a || !mode) return [];
  const path = a.artifact?.split(':').slice(1).join(':');
  const at: Located[] = [];
  for (const l of v.events) {
    const e = l.event;
    if (e.type === 'stage.checked' && (e.stage === a.stage || (path !== undefined && path in e.artifacts)))
      at.push(l);
    if (
      e.type === 'artifact.handed_off' &&
      path !== undefined &&
      (e.from.path === path || e.to.path === path)
    )
      at.push(l);
  }
  const verified = ofType(v, 'verification.completed').at(-1);
  return [finding(mode, 'dependency', at.length ? at : verified ? [verified] : [], a.detail.slice(0, 300))];
}

function consumedOld(v: EpisodeView): Finding[] {
  const out: Finding[] = [];
  const produced = new Map<string, Located>();
  const handed = new Map<string, Located>();
  const stages = stagesOf(v.task);
  for (const l of v.events) {
    const e = l.event;
    if (e.type === 'artifact.handed_off') {
      handed.set(e.to.path, l);
      handed.set(e.from.path, l);
    }
    if (e.type !== 'stage.checked') continue;
    const st = stages.find((s) => s.name === e.stage);
    for (const input of st ? consumedBy(v.task, st) : []) {
      const made = produced.get(input.path);
      const got = handed.get(input.path);
      if (!made || !got || got.event.type !== 'artifact.handed_off' || made.event.type !== 'stage.checked')
        continue;
      const latest = made.event.artifacts[input.path];
      if (latest === undefined || latest === got.event.digest || made.seq < got.seq) continue;
      out.push(
        finding(
          'dependency.consumed_old_version',
          'dependency',
          [got, made, l],
          `stage "${e.stage}" was checked in round ${l.round} on ${input.path} ${got.event.digest.slice(0, 12)} (handed off in round ${got.round}), but stage "${made.event.stage}" had made ${latest.slice(0, 12)} in round ${made.round}`,
        ),
      );
    }
    for (const p of Object.keys(e.artifacts)) produced.set(p, l);
  }
  return out;
}

/** Hand-offs between apps that lost, staled or mis-formatted a needed artifact. */
export const dependencyDetector: Detector = {
  name: 'dependency',
  detect: (v) => [...broken(v), ...consumedOld(v)],
};
