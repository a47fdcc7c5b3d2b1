/**
 * The failure-mode taxonomy: two levels (`category.mode`), each mode owned by whoever must fix it —
 * the **agent** (a capability score may count it), the **task** (its author), the **harness**
 * (engiloop) or the **infrastructure** (Docker, NATS, a model provider). An episode may show several
 * modes. Only agent-owned modes describe the model; the others explain a result that says nothing
 * about it, so reports keep them apart.
 *
 * WARNING: stored format. Mode ids are written into episode summaries; renaming or removing one
 * needs a {@link TAXONOMY_VERSION} bump (and readers that map the old ids). Adding one does not.
 */

/** Version of the mode ids below. */
export const TAXONOMY_VERSION = 1 as const;

/** Who must act on a failure mode. */
export type Owner = 'agent' | 'task' | 'harness' | 'infrastructure';

/** One failure mode. */
export interface ModeInfo {
  owner: Owner;
  /** What it means, one line. */
  title: string;
}

/** Every failure mode, by id. Keep README.md's table in step (a test compares them). */
export const MODES = {
  'dependency.handoff_missing': {
    owner: 'agent',
    title: 'an artifact a later app needed was never handed off to it',
  },
  'dependency.handoff_stale': {
    owner: 'agent',
    title: "a hand-off carried an older version than the producer's latest",
  },
  'dependency.handoff_wrong_format': {
    owner: 'agent',
    title: 'a hand-off carried a file whose content is not the format the next app reads',
  },
  'dependency.consumed_old_version': {
    owner: 'agent',
    title: 'a stage was checked on an input older than what its producer had made by then',
  },
  'constraint.near_miss': {
    owner: 'agent',
    title: 'a measured value missed its target by at most twice the tolerance',
  },
  'constraint.far_off': {
    owner: 'agent',
    title: 'a measured value missed its target by more than twice the tolerance',
  },
  'constraint.check_failed': {
    owner: 'agent',
    title: 'a criterion without a numeric target failed (topology, presence, structure)',
  },
  'deliverable.missing': { owner: 'agent', title: 'a deliverable was not there at the end' },
  'verification.unverified_done': {
    owner: 'agent',
    title: 'DONE without inspecting, measuring, re-running or viewing the deliverable after its last change',
  },
  'feedback.ignored': {
    owner: 'agent',
    title: 'a tool reported an error or warning and the agent declared DONE or went on with unrelated work',
  },
  'loop.repeated_failure': { owner: 'agent', title: 'the same failing action, repeated' },
  'loop.no_progress': {
    owner: 'agent',
    title: 'many rounds without a new successful action or a changed deliverable',
  },
  'termination.premature_done': { owner: 'agent', title: 'DONE while the deliverables fail' },
  'termination.premature_fail': { owner: 'agent', title: 'gave up (FAIL) with rounds and time left' },
  'termination.stuck_at_limit': { owner: 'agent', title: 'ran out of rounds or time without declaring DONE' },
  'output.invalid_streak': {
    owner: 'agent',
    title: 'consecutive agent outputs that were not valid decisions',
  },
  'execution.command_timeout': { owner: 'agent', title: "an agent's command ran past its time limit" },
  'execution.resource_exhausted': {
    owner: 'agent',
    title: "an agent's command hit a sandbox limit (processes, disk, output or file cap)",
  },
  'gui.no_effect': { owner: 'agent', title: 'GUI actions after which the screen did not change' },
  'gui.focus_lost': {
    owner: 'agent',
    title: "the app's window lost the focus (a dialog or another window took it, or nothing has it)",
  },
  'gui.click_outside': { owner: 'agent', title: 'a click that landed outside every window' },
  'selection.wrong_app': {
    owner: 'agent',
    title:
      'in a software-selection task, the agent worked in an app it could not make produce the deliverable',
  },
  'task.criterion_unevaluable': {
    owner: 'task',
    title: "a criterion could not be evaluated because of the task's own definition (params, paths)",
  },
  'harness.verifier_error': {
    owner: 'harness',
    title: 'a verifier crashed or timed out on a readable artifact',
  },
  'harness.recording_failed': {
    owner: 'harness',
    title: 'the episode log could not be written or read back',
  },
  'infrastructure.sandbox_lost': {
    owner: 'infrastructure',
    title: 'a sandbox container vanished under the episode',
  },
  'infrastructure.provider_retried': {
    owner: 'infrastructure',
    title: 'the model provider failed transiently and the call was retried',
  },
  'infrastructure.provider_down': {
    owner: 'infrastructure',
    title: 'the model provider could not be reached',
  },
  'infrastructure.fault': {
    owner: 'infrastructure',
    title: 'Docker, NATS or the host failed the episode (infra_error)',
  },
} as const satisfies Record<string, ModeInfo>;

/** A failure mode id, `category.mode`. */
export type ModeId = keyof typeof MODES;

/** One failure mode found in one episode, with the evidence. */
export interface Finding {
  mode: ModeId;
  owner: Owner;
  /** Stream sequence numbers of the events that show it (ascending). */
  seqs: number[];
  /** Rounds those events belong to (ascending, distinct; 0 = before the first round). */
  rounds: number[];
  /** One line: what happened, with the numbers. */
  explanation: string;
  /** The detector that made it (`llm-judge` for the optional judge's additions). */
  detector: string;
}
