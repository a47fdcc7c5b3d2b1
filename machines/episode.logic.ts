/**
 * The episode machine's longer rules as plain functions of its context and an event: the context
 * updates its actions make and the checks its guards make (episode.machine.ts wires them in).
 * Pure, like the machine.
 */
import type { EpisodeEvent } from '../streams/index.js';
import type { EpisodeContext, RoundRecord } from './context.js';

type Ev<T extends EpisodeEvent['type']> = Extract<EpisodeEvent, { type: T }>;

const trim = (h: RoundRecord[], n: number): RoundRecord[] => (h.length > n ? h.slice(h.length - n) : h);

/** The score `episode.ended` must carry. */
export const endScore = (c: EpisodeContext): number | null =>
  c.status === 'infra_error' ? null : (c.verification?.score ?? 0);

/** A decision opens its round: its actions are pending, and it joins the history window. */
export function afterDecision(c: EpisodeContext, e: Ev<'agent.decided'>): Partial<EpisodeContext> {
  const rec: RoundRecord = {
    round: e.round,
    observation: c.observation ?? '',
    decision: e.decision,
    results: [],
  };
  return {
    round: e.round,
    observation: null,
    pending: e.decision.kind === 'act' ? e.decision.actions : [],
    executed: 0,
    skipping: false,
    handedOff: false,
    history: trim([...c.history, rec], c.rules.historyWindow),
    failReason: e.decision.kind === 'fail' ? e.decision.reason : null,
  };
}

/**
 * An action's result joins its round; under `stopAtFirstFailure` a failure (any exit code but 0,
 * a timeout included) makes the rest of the batch skips.
 */
export function afterAction(c: EpisodeContext, e: Ev<'action.executed'>): Partial<EpisodeContext> {
  const last = c.history[c.history.length - 1];
  const history = last
    ? [
        ...c.history.slice(0, -1),
        { ...last, results: [...last.results, { action: e.action, result: e.result }] },
      ]
    : c.history;
  return {
    executed: c.executed + 1,
    handedOff: false,
    skipping: c.skipping || (c.rules.stopAtFirstFailure && e.result.exitCode !== 0),
    history,
  };
}

/** A stage check counts in its sweep, sets the stage's latest score, and (but at the end) may halt. */
export function afterStageCheck(c: EpisodeContext, e: Ev<'stage.checked'>): Partial<EpisodeContext> {
  const why = e.blockedBy
    ? `depends on stage "${e.blockedBy.stage}" (score ${e.blockedBy.score ?? 'none'} < ${e.blockedBy.min})`
    : e.verdicts
        .filter((v) => !v.passed)
        .map((v) => `${v.criterion}: ${v.reason}`)
        .join('; ');
  const halts = e.halt && c.sweep?.after !== 'final';
  return {
    sweep: c.sweep && { ...c.sweep, checked: c.sweep.checked + 1 },
    stageScores: { ...c.stageScores, [e.stage]: e.score },
    halted: halts ? `stage "${e.stage}" failed: ${why}` : c.halted,
  };
}

/** The action the machine asked for: this round, this index, the same fields in the same order. */
export function isCurrentAction(c: EpisodeContext, e: Ev<'action.started' | 'action.executed'>): boolean {
  return e.round === c.round && e.index === c.executed && sameJson(e.action, c.pending[c.executed]);
}

/**
 * `JSON.stringify(a) === JSON.stringify(b)`, without printing both on every action (it was ~8 % of
 * a fold): a walk that says "equal" only when the two print the same (same keys in the same order,
 * the same primitives), and prints them to decide every other case (a divergence, or a value such
 * as a `toJSON` object that the walk does not judge).
 */
function sameJson(a: unknown, b: unknown): boolean {
  return surelySame(a, b) || JSON.stringify(a) === JSON.stringify(b);
}

function surelySame(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if ('toJSON' in a || 'toJSON' in b) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !surelySame((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  }
  return true;
}

/**
 * A check of one of the task's stages, in the round under way, agreeing with the rules: blocked
 * exactly when its `after` stage has not scored `minScore`, halting exactly when it failed and the
 * stage halts on failure; none after a halting one (but at the end, when halts no longer count).
 */
export function stageCheckFits(c: EpisodeContext, e: Ev<'stage.checked'>): boolean {
  const rule = c.rules.stages.find((s) => s.name === e.stage);
  if (!rule || e.round !== c.round || !c.sweep) return false;
  if (c.halted !== null && c.sweep.after !== 'final') return false;
  const dep = rule.after === null ? undefined : c.stageScores[rule.after];
  const blocked = rule.after !== null && (dep === undefined || dep < rule.minScore);
  return e.halt === (rule.haltOnFail && !e.passed) && (e.blockedBy !== undefined) === blocked;
}

/**
 * The snapshot due after this round's stage checks (or after the round, for a task without
 * stages): `stage` when they recorded something, `interval` every `snapshotEvery`-th round; else null.
 */
export function snapshotReason(c: EpisodeContext): 'stage' | 'interval' | null {
  if (c.rules.snapshotAfterStages && (c.sweep?.checked ?? 0) > 0) return 'stage';
  if (c.rules.snapshotEvery > 0 && c.round % c.rules.snapshotEvery === 0) return 'interval';
  return null;
}
