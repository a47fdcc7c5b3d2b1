/**
 * The report's data format: what `engiloop report` writes into `data/` and `engiloop view` serves,
 * and all the browser pages read. Types only (and the version), so the pages (`web/`, compiled for
 * the browser) and the writer (Node) share one definition.
 *
 * WARNING: stored format. A report folder is kept (attached to a paper, a CI artifact) and opened
 * by the pages bundled with it, so a change only has to keep pages and data of one build together;
 * still, bump {@link REPORT_FORMAT} on any change a reader could misread, and the pages refuse data
 * of another version by name.
 *
 * Every file in `data/` is a script, `engiloopData(key, payload)`, not JSON: a page opened from
 * `file://` may load scripts from its folder but not fetch files, so this is what works with no
 * server. Keys: `report` (data/report.js), `episode:<id>` (data/episodes/<id>.js), `search:<n>`
 * (data/search-<n>.js), `text:<name>` (data/text/<name>.js, a long output).
 */

/** Version of this format. */
export const REPORT_FORMAT = 1 as const;

/** Texts longer than this (characters) are cut in the episode file; the whole is a `text:` file. */
export const INLINE_TEXT = 4_000;

/** A finding as stored in a summary (mode, owner, the seqs and rounds that show it, one line). */
export interface FindingData {
  mode: string;
  owner: string;
  seqs: number[];
  rounds: number[];
  explanation: string;
  detector: string;
}

/** A verdict on one criterion (as recorded: measured, expected, tolerance, reason). */
export interface VerdictView {
  criterion: string;
  verifier: string;
  role: string;
  passed: boolean;
  score: number;
  measured?: unknown;
  expected?: unknown;
  tolerance?: unknown;
  reason: string;
}

/** A slice's EngiScore (0–100) with its bootstrap 95 % interval. */
export interface ScoreData {
  key: string;
  tasks: number;
  episodes: number;
  engiScore: number | null;
  low: number | null;
  high: number | null;
  passRate: number | null;
}

export interface UsageData {
  key: string;
  episodes: number;
  input: number;
  output: number;
  cached: number;
  costUsd: number | null;
  steps: number;
  rounds: number;
  durationMs: number;
}

/** One run's statistics (actors/analysis `RunAnalysis`, as JSON). */
export interface RunData {
  id: string;
  startedAt: number | null;
  finishedAt: number | null;
  /** Episodes not ended yet (live view: still running). */
  pending: number;
  episodes: number;
  scored: number;
  infraErrors: number;
  overall: ScoreData;
  by: { domain: ScoreData[]; type: ScoreData[]; interface: ScoreData[]; app: ScoreData[] };
  repeats: {
    k: number;
    overall: { passAtK: number; passHatK: number };
    byTask: { taskId: string; n: number; c: number; passAtK: number; passHatK: number }[];
    flips: string[];
    variance: Record<string, number>;
  } | null;
  modes: { mode: string; owner: string; episodes: number; tasks: number }[];
  owners: Record<string, number>;
  usage: { byAgent: UsageData[]; byTask: UsageData[] };
}

/** Run B against run A (`report A B`). */
export interface ComparisonData {
  a: string;
  b: string;
  tasks: { taskId: string; a: number; b: number; delta: number; passedA: boolean; passedB: boolean }[];
  onlyA: string[];
  onlyB: string[];
  fixed: string[];
  broken: string[];
  score: { delta: number; low: number; high: number; p: number } | null;
  mcnemar: { b: number; c: number; p: number };
  modes: { mode: string; a: number; b: number; delta: number }[];
}

/** One episode in the run's lists (the overview grid, the filters). */
export interface EpisodeRow {
  id: string;
  runId: string;
  taskId: string;
  agent: string;
  /** `running` in the live view until the episode ends. */
  status: string;
  score: number | null;
  passed: boolean;
  rounds: number;
  steps: number;
  durationMs: number;
  facets: { domain: string; type: string; interface: string; apps: string[] };
  usage: { input: number; output: number; cached: number; costUsd: number | null; retries: number } | null;
  /** Failure modes (ids); the findings themselves are in the episode file. */
  modes: string[];
  parent: { episodeId: string; round: number } | null;
}

/** `data/report.js`. */
export interface ReportData {
  format: typeof REPORT_FORMAT;
  /** ISO time the data was made. */
  generatedAt: string;
  engiloop: string;
  /** True when served by `engiloop view` (pages then listen for updates). */
  live: boolean;
  runs: RunData[];
  /** Set when the report has exactly two runs. */
  comparison: ComparisonData | null;
  episodes: EpisodeRow[];
  /** Every failure mode of the taxonomy: id → owner and title. */
  taxonomy: Record<string, { owner: string; title: string }>;
  /** Number of `search:<n>` files (the search index, in chunks). */
  searchChunks: number;
}

/** A text that may have been cut: the head, and the `text:` file with the whole when it was. */
export interface TextData {
  text: string;
  /** Name of the `text:<name>` file holding the whole text, when `text` is cut. */
  full?: string;
  /** Length of the whole text in characters. */
  length: number;
}

/** One action of a round and its result. */
export interface ActionData {
  index: number;
  /** The action as recorded. */
  action: Record<string, unknown>;
  /** One line: the command, or the GUI action with its coordinates. */
  label: string;
  /** The sandbox it ran in (a hand-off: its producer). */
  sandbox: string;
  exitCode: number | null;
  durationMs: number | null;
  timedOut: boolean;
  skipped: boolean;
  stdout: TextData;
  stderr: TextData;
  /** A fault the command ran into (disk full, a cap), its one-line message. */
  fault: string | null;
  /** Seq of the `action.executed` event. */
  seq: number | null;
}

/** The agent's output for a round. */
export interface DecisionData {
  kind: string;
  /** DONE's message, FAIL's reason, or why the output was invalid. */
  note: string | null;
  /** The raw output as the agent gave it (JSON text, maybe cut). */
  raw: TextData;
  latencyMs: number;
  call: {
    provider: string;
    model: string;
    input: number;
    output: number;
    cached: number;
    costUsd: number | null;
    latencyMs: number;
    retries: number;
    stopReason: string | null;
  } | null;
  /** Provider retries before this output. */
  retries: { attempt: number; message: string; delayMs: number }[];
  seq: number | null;
}

/** A screenshot of a GUI observation: the file in `files/` (null when not in the store). */
export interface ScreenshotData {
  file: string | null;
  digest: string;
  windows: { title: string; x: number; y: number; width: number; height: number; focused: boolean }[];
}

/** One round of an episode. */
export interface RoundData {
  round: number;
  /** Sandboxes this round's actions ran in (the lanes it appears in). */
  sandboxes: string[];
  observation: { text: TextData; screenshot: ScreenshotData | null; seq: number | null } | null;
  decision: DecisionData | null;
  actions: ActionData[];
  /** Failure modes citing this round. */
  modes: string[];
  /** ms since the episode started, at the round's first event. */
  atMs: number;
}

/** A hand-off between two sandboxes, with the verdict of the stage that checked what it carried. */
export interface HandoffData {
  round: number;
  index: number;
  from: { sandbox: string; path: string };
  to: { sandbox: string; path: string };
  digest: string;
  bytes: number;
  format: string;
  declared: string;
  checkedBy: { stage: string; passed: boolean; score: number } | null;
  seq: number | null;
}

/** A stage check. */
export interface StageData {
  stage: string;
  round: number;
  passed: boolean;
  score: number;
  halt: boolean;
  blockedBy: { stage: string; score: number | null; min: number } | null;
  verdicts: VerdictView[];
  seq: number | null;
}

/** One point of the verdict trace: a criterion's verdict and measure at a round. */
export interface TraceSeries {
  criterion: string;
  points: { round: number; passed: boolean; score: number; measured: number | null; source: string }[];
  lastRight: number | null;
  firstWrong: number | null;
}

/** Artifact graph (actors/provenance `ProvenanceGraph`, drawn by the pages). */
export interface ProvenanceData {
  nodes: {
    id: string;
    sandbox: string;
    path: string;
    digest: string;
    producedBy: { round: number; index: number | null; command: string | null } | null;
    final: boolean;
    checks: { source: string; round: number | null; passed: boolean; score: number }[];
  }[];
  edges: { from: string; to: string; round: number; format: string; bytes: number }[];
  attribution: { stage?: string; reason?: string; [k: string]: unknown } | null;
}

/** `data/episodes/<id>.js`. */
export interface EpisodeData {
  format: typeof REPORT_FORMAT;
  id: string;
  runId: string;
  taskId: string;
  title: string;
  objective: string;
  interface: string;
  agent: string;
  status: string;
  score: number | null;
  passed: boolean;
  /** One lane each, in the task's order. */
  sandboxes: string[];
  rounds: RoundData[];
  handoffs: HandoffData[];
  stages: StageData[];
  verification: { score: number; passed: boolean; verdicts: VerdictView[]; seq: number | null } | null;
  findings: FindingData[];
  /**
   * Criteria over the rounds: re-verified at each snapshot (`report --trace`), or else the
   * recorded stage checks and final verification.
   */
  trace: { source: 'reverified' | 'recorded'; series: TraceSeries[] };
  /** Where the episode came from and what was forked from it (ids in this report or not). */
  family: {
    parent: { episodeId: string; round: number } | null;
    children: { episodeId: string; round: number }[];
  };
  provenance: ProvenanceData | null;
  /** An infrastructure fault that ended it, one line. */
  error: string | null;
  events: number;
  /** Not ended yet (live view). */
  running: boolean;
}

/** One searchable text (`search:<n>` files hold arrays of these). */
export interface SearchEntry {
  /** Episode id, round, and what the text is. */
  e: string;
  r: number;
  k: 'command' | 'stdout' | 'stderr' | 'agent' | 'observation';
  t: string;
}
