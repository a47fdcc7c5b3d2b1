/**
 * The episode machine's context: everything the harness needs to decide what to do next, and
 * nothing that could make a fold differ from the live run (no clocks, no ids minted here).
 */
import type {
  ActionRecord,
  CommandResultRecord,
  Decision,
  ErrorData,
  EpisodeStatus,
  RulesRecord,
  VerdictData,
} from '../streams/index.js';

/** One round as the agent will see it in its history window. */
export interface RoundRecord {
  round: number;
  /** The observation the agent decided on. */
  observation: string;
  decision: Decision;
  results: { action: ActionRecord; result: CommandResultRecord }[];
}

/** Why the episode went to verification. */
export type Outcome = 'done' | 'fail' | 'limit';

/** What a round of stage checks follows (see `stages.swept`). */
export type SweepAfter = 'round' | 'handoff' | 'final';

/** The live states: where an episode can be when a fault interrupts it. */
export type Phase =
  'provisioning' | 'observing' | 'deciding' | 'acting' | 'checking_stages' | 'snapshotting' | 'verifying';

export interface EpisodeContext {
  episodeId: string;
  runId: string;
  taskId: string;
  agent: string;
  /** Rules version and behaviour flags the episode was started with. */
  machine: number;
  flags: number[];
  rules: RulesRecord;
  /** `at` of `episode.started` (moved on by each resume's downtime): the episode clock's origin. */
  startedAt: number;
  /** `at` of the latest event applied. */
  lastAt: number;
  /** Decisions taken so far (valid or not). */
  round: number;
  /** Observation awaiting a decision. */
  observation: string | null;
  /** Actions of the current round, and how many have run. */
  pending: ActionRecord[];
  executed: number;
  /** An action of this batch failed and the rules stop at the first failure: the rest are skipped. */
  skipping: boolean;
  /** The current hand-off action recorded its `artifact.handed_off`. */
  handedOff: boolean;
  /** The last `historyWindow` rounds. */
  history: RoundRecord[];
  /** The stage checks under way: what they follow, and how many recorded a check. */
  sweep: { after: SweepAfter; checked: number } | null;
  /** Latest score of each stage checked so far (the `after` rule reads it). */
  stageScores: Record<string, number>;
  /** Why a stage check halted the episode, once one did. */
  halted: string | null;
  /** The snapshot the machine asked for. */
  snapshot: { reason: 'interval' | 'stage' } | null;
  /** The live state the episode is in, or was in when a fault interrupted it. */
  phase: Phase;
  /** Sandboxes exist to restore (provisioning completed). */
  provisioned: boolean;
  /** Sandboxes lost so far, and the restore under way. */
  losses: number;
  restore: { reason: 'worker_lost' | 'sandbox_lost' } | null;
  outcome: Outcome | null;
  /** Which limit ended the episode, when one did. */
  limitReason: 'max_rounds' | 'wall_clock' | null;
  /** Agent's stated reason for FAIL, or the halting stage's failure. */
  failReason: string | null;
  verification: { score: number; passed: boolean; verdicts: VerdictData[] } | null;
  error: (ErrorData & { during: string }) | null;
  /** Final status once the machine is in a terminal state. */
  status: EpisodeStatus | null;
}

/** Rules of a machine that has not started (replaced by `episode.started`). */
const NO_RULES: RulesRecord = {
  maxRounds: 0,
  wallClockMs: 0,
  historyWindow: 15,
  stopAtFirstFailure: false,
  snapshotEvery: 0,
  snapshotAfterStages: false,
  stages: [],
  sandboxRetries: 0,
};

export function emptyContext(): EpisodeContext {
  return {
    episodeId: '',
    runId: '',
    taskId: '',
    agent: '',
    machine: 0,
    flags: [],
    rules: NO_RULES,
    startedAt: 0,
    lastAt: 0,
    round: 0,
    observation: null,
    pending: [],
    executed: 0,
    skipping: false,
    handedOff: false,
    history: [],
    sweep: null,
    stageScores: {},
    halted: null,
    snapshot: null,
    phase: 'provisioning',
    provisioned: false,
    losses: 0,
    restore: null,
    outcome: null,
    limitReason: null,
    failReason: null,
    verification: null,
    error: null,
    status: null,
  };
}
