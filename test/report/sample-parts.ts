/** The pieces sample-data.ts builds its report from: the ids the tests look for and small builders. */
import { PNG } from 'pngjs';
import {
  INLINE_TEXT,
  REPORT_FORMAT,
  type ActionData,
  type EpisodeData,
  type RoundData,
  type TextData,
} from '../../actors/report/format.js';

/** Ids and facts the tests look for. */
export const SAMPLE = {
  run: 'run-2026-12-01-a',
  workflow: 'ep wf:cad→fem',
  gui: 'ep-gui-kicad-1',
  fork: 'ep-gui-kicad-fork',
  long: 'ep-long-1000',
  shot: 'files/shot-gui-1.png',
  shotSize: { width: 640, height: 400 },
  click: { x: 120, y: 80 },
  drag: { from: [200, 150] as [number, number], to: [420, 300] as [number, number] },
  command: 'ccx -i bracket_fem_solve',
  hostile: '<img src=x onerror="window.__pwned=1">',
  taxonomy: {
    handoff_defect: { owner: 'agent', title: 'Defective hand-off' },
    misclick: { owner: 'agent', title: 'Click missed its target' },
    ignored_error: { owner: 'agent', title: 'Ignored a failing command' },
    ambiguous_task: { owner: 'task', title: 'Task statement ambiguous' },
    harness_timeout: { owner: 'harness', title: 'Harness timed out' },
    sandbox_lost: { owner: 'infrastructure', title: 'Sandbox lost' },
  } as Record<string, { owner: string; title: string }>,
};

/** The agents of the sample. */
export const AGENTS = ['scripted', 'openai:gpt-4o'];
/** The tasks of the sample. */
export const TASKS = [
  'openscad-plate',
  'gmsh-bracket',
  'freecad-hinge',
  'gui-kicad-board',
  'workflow-cad-fem',
];

/** A PNG of the given size: a gradient, a "button" at the click, a bar along the drag. */
export function samplePng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const button = Math.abs(x - SAMPLE.click.x) < 30 && Math.abs(y - SAMPLE.click.y) < 16;
      png.data[i] = button ? 40 : (200 + (x * 55) / width) | 0;
      png.data[i + 1] = button ? 90 : (210 + (y * 40) / height) | 0;
      png.data[i + 2] = button ? 200 : 225;
      png.data[i + 3] = 255;
    }
  return PNG.sync.write(png);
}

/** Sample builder. */
export function text(t: string, name: string, texts: Record<string, string>): TextData {
  if (t.length <= INLINE_TEXT) return { text: t, length: t.length };
  texts[name] = t;
  return { text: t.slice(0, INLINE_TEXT), full: name, length: t.length };
}

/** Sample builder. */
export function shell(
  index: number,
  sandbox: string,
  command: string,
  stdout: string,
  exitCode = 0,
  stderr = '',
): ActionData {
  return {
    index,
    action: { type: 'shell', command, sandbox },
    label: command,
    sandbox,
    exitCode,
    durationMs: 120 + index * 35,
    timedOut: false,
    skipped: false,
    stdout: { text: stdout, length: stdout.length },
    stderr: { text: stderr, length: stderr.length },
    fault: null,
    seq: null,
  };
}

/** Sample builder. */
export function gui(index: number, action: Record<string, unknown>, label: string): ActionData {
  return { ...shell(index, 'desktop', label, ''), action, label };
}

/** Sample builder. */
export function round(
  n: number,
  actions: ActionData[],
  obs: string,
  modes: string[] = [],
  kind = 'actions',
): RoundData {
  const raw = JSON.stringify({ kind, actions: actions.map((a) => a.action) });
  return {
    round: n,
    sandboxes: [...new Set(actions.map((a) => a.sandbox))],
    observation: { text: { text: obs, length: obs.length }, screenshot: null, seq: null },
    decision: {
      kind,
      note: kind === 'done' ? 'deliverable written' : null,
      raw: { text: raw, length: raw.length },
      latencyMs: 800 + n * 3,
      call: {
        provider: 'openai',
        model: 'gpt-4o',
        input: 1200 + n * 40,
        output: 150,
        cached: 800,
        costUsd: 0.0031,
        latencyMs: 780,
        retries: n === 2 ? 1 : 0,
        stopReason: 'stop',
      },
      retries: n === 2 ? [{ attempt: 1, message: '429 rate limited', delayMs: 2000 }] : [],
      seq: null,
    },
    actions,
    modes,
    atMs: n * 4100,
  };
}

/** What every sample episode states. */
export type Base = Pick<EpisodeData, 'id' | 'taskId' | 'agent' | 'score' | 'passed' | 'status' | 'interface'>;

/** Sample builder. */
export function episode(
  b: Base,
  rest: Partial<EpisodeData> & Pick<EpisodeData, 'rounds' | 'sandboxes'>,
): EpisodeData {
  const passedFinal = b.passed;
  return {
    format: REPORT_FORMAT,
    runId: SAMPLE.run,
    title: `${b.taskId} by ${b.agent}`,
    objective: `Solve ${b.taskId}: write the deliverable to /work/out and make it pass its verifiers.`,
    handoffs: [],
    stages: [],
    verification: {
      score: b.score ?? 0,
      passed: passedFinal,
      seq: null,
      verdicts: [
        {
          criterion: 'hole_diameter',
          verifier: 'mesh-measure',
          role: 'final',
          passed: passedFinal,
          score: passedFinal ? 1 : 0,
          measured: passedFinal ? 6.01 : 4.2,
          expected: 6,
          tolerance: 0.05,
          reason: passedFinal ? 'within tolerance' : 'hole is 4.2 mm, expected 6 ± 0.05 mm',
        },
        {
          criterion: 'watertight',
          verifier: 'mesh-check',
          role: 'final',
          passed: true,
          score: 1,
          reason: 'closed 2-manifold',
        },
      ],
    },
    findings: [],
    trace: { source: 'recorded', series: [] },
    family: { parent: null, children: [] },
    provenance: null,
    error: null,
    events: rest.rounds.length * 6 + 4,
    running: false,
    ...b,
    ...rest,
  };
}
