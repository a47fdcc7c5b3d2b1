/**
 * FROZEN with `episode-v1.machine.ts`: the context of machine version 1 (its digests hash it).
 *
 * The episode machine's context: everything the harness needs to decide what to do next, and
 * nothing that could make a fold differ from the live run (no clocks, no ids minted here).
 */
import type { ActionRecord as Action } from '../../streams/index.js';
import type {
  CommandResultRecord as CommandResult,
  Decision,
  ErrorData,
  EpisodeStatus,
  VerdictData,
} from '../../streams/index.js';

/** One round as the agent will see it in its history window. */
export interface RoundRecord {
  round: number;
  /** The observation the agent decided on. */
  observation: string;
  decision: Decision;
  results: { action: Action; result: CommandResult }[];
}

/** Why the episode went to verification. */
export type Outcome = 'done' | 'fail' | 'limit';

export interface EpisodeContext {
  episodeId: string;
  runId: string;
  taskId: string;
  agent: string;
  maxRounds: number;
  wallClockMs: number;
  historyWindow: number;
  /** `at` of `episode.started`: the episode clock's origin. */
  startedAt: number;
  /** `at` of the latest event applied. */
  lastAt: number;
  /** Decisions taken so far (valid or not). */
  round: number;
  /** Observation awaiting a decision. */
  observation: string | null;
  /** Actions of the current round, and how many have run. */
  pending: Action[];
  executed: number;
  /** The last `historyWindow` rounds. */
  history: RoundRecord[];
  outcome: Outcome | null;
  /** Which limit ended the episode, when one did. */
  limitReason: 'max_rounds' | 'wall_clock' | null;
  /** Agent's stated reason for FAIL. */
  failReason: string | null;
  verification: { score: number; passed: boolean; verdicts: VerdictData[] } | null;
  error: (ErrorData & { during: string }) | null;
  /** Final status once the machine is in a final state. */
  status: EpisodeStatus | null;
}

export function emptyContext(): EpisodeContext {
  return {
    episodeId: '',
    runId: '',
    taskId: '',
    agent: '',
    maxRounds: 0,
    wallClockMs: 0,
    historyWindow: 15,
    startedAt: 0,
    lastAt: 0,
    round: 0,
    observation: null,
    pending: [],
    executed: 0,
    history: [],
    outcome: null,
    limitReason: null,
    failReason: null,
    verification: null,
    error: null,
    status: null,
  };
}
