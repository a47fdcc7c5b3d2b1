/** The special episodes of the sample: workflow with hand-offs, GUI with screenshots, fork, long. */
import type { EpisodeData, HandoffData, RoundData } from '../../actors/report/format.js';
import { SAMPLE, episode, gui, round, shell, text } from './sample-parts.js';

function handoff(
  r: number,
  path: string,
  to: string,
  checked: { stage: string; passed: boolean } | null,
): HandoffData {
  return {
    round: r,
    index: 0,
    from: { sandbox: 'cad', path: `/work/${path}` },
    to: { sandbox: to, path: `/work/in/${path}` },
    digest: 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90',
    bytes: 68_412,
    format: path.split('.').pop() ?? 'bin',
    declared: 'stl',
    checkedBy: checked ? { ...checked, score: checked.passed ? 1 : 0.4 } : null,
    seq: null,
  };
}

/** The two-sandbox workflow: CAD → FEM, the hand-off checked by a failing stage, a long solver log. */
export function workflowEpisode(texts: Record<string, string>): EpisodeData {
  const log = Array.from(
    { length: 900 },
    (_, i) => `ccx step ${i}: residual ${(1 / (i + 1)).toExponential(3)}`,
  ).join('\n');
  const rounds: RoundData[] = [
    round(
      1,
      [shell(0, 'cad', 'openscad -o part.stl part.scad', 'Total rendering time: 0:00:01.2')],
      'cad ready',
    ),
    round(
      2,
      [
        {
          ...shell(0, 'cad', 'handoff part.stl → fem', ''),
          action: { type: 'handoff', from: 'cad', to: 'fem' },
        },
      ],
      'copied',
      ['handoff_defect'],
    ),
    round(3, [shell(0, 'fem', 'gmsh -3 part.stl -o mesh.inp', 'Info: Done meshing 3D')], 'mesh ready'),
    round(
      4,
      [{ ...shell(0, 'fem', SAMPLE.command, '', 1), stdout: text(log, 'ccx-log-ep-wf', texts) }],
      SAMPLE.hostile,
      ['ignored_error'],
    ),
    round(5, [shell(0, 'fem', 'cat result.frd | head', 'no result')], 'done', [], 'done'),
  ];
  rounds[3]!.actions[0]!.stderr = { text: '*ERROR in ccx: singular stiffness matrix', length: 40 };
  return episode(
    {
      id: SAMPLE.workflow,
      taskId: 'workflow-cad-fem',
      agent: 'openai:gpt-4o',
      score: 0.35,
      passed: false,
      status: 'failed',
      interface: 'cli',
    },
    {
      sandboxes: ['cad', 'fem'],
      rounds,
      handoffs: [handoff(2, 'part.stl', 'fem', { stage: 'geometry', passed: false })],
      stages: [
        {
          stage: 'geometry',
          round: 2,
          passed: false,
          score: 0.4,
          halt: false,
          blockedBy: null,
          seq: null,
          verdicts: [
            {
              criterion: 'hole_count',
              verifier: 'mesh-measure',
              role: 'stage',
              passed: false,
              score: 0,
              measured: 3,
              expected: 4,
              reason: '3 holes, expected 4',
            },
          ],
        },
      ],
      findings: [
        {
          mode: 'handoff_defect',
          owner: 'agent',
          seqs: [],
          rounds: [2],
          explanation: 'part.stl left CAD with a hole missing',
          detector: 'provenance',
        },
        {
          mode: 'ignored_error',
          owner: 'agent',
          seqs: [],
          rounds: [4, 5],
          explanation: 'ccx failed (exit 1) and the agent said DONE',
          detector: 'exit-codes',
        },
      ],
      trace: {
        source: 'recorded',
        series: [
          {
            criterion: 'hole_count',
            points: [1, 2, 3, 4, 5].map((r) => ({
              round: r,
              passed: r < 2,
              score: r < 2 ? 1 : 0,
              measured: r < 2 ? 4 : 3,
              source: 'stage',
            })),
            lastRight: 1,
            firstWrong: 2,
          },
        ],
      },
      provenance: {
        nodes: [
          {
            id: 'n1',
            sandbox: 'cad',
            path: 'part.scad',
            digest: '0f1e2d3c4b5a69788796a5b4',
            producedBy: null,
            final: false,
            checks: [],
          },
          {
            id: 'n2',
            sandbox: 'cad',
            path: 'part.stl',
            digest: 'a1b2c3d4e5f60718293a',
            producedBy: { round: 1, index: 0, command: 'openscad' },
            final: false,
            checks: [{ source: 'geometry', round: 2, passed: false, score: 0.4 }],
          },
          {
            id: 'n3',
            sandbox: 'fem',
            path: 'in/part.stl',
            digest: 'a1b2c3d4e5f60718293a',
            producedBy: { round: 2, index: 0, command: null },
            final: false,
            checks: [],
          },
          {
            id: 'n4',
            sandbox: 'fem',
            path: 'mesh.inp',
            digest: '99887766554433221100',
            producedBy: { round: 3, index: 0, command: 'gmsh' },
            final: true,
            checks: [{ source: 'final', round: null, passed: false, score: 0.35 }],
          },
        ],
        edges: [
          { from: 'n1', to: 'n2', round: 1, format: 'stl', bytes: 68_412 },
          { from: 'n2', to: 'n3', round: 2, format: 'stl', bytes: 68_412 },
          { from: 'n3', to: 'n4', round: 3, format: 'inp', bytes: 120_004 },
        ],
        attribution: { stage: 'geometry', reason: 'the defect entered at part.stl in cad' },
      },
    },
  );
}

/** The GUI episode: screenshots with a click, a drag and a double click; forked at round 2. */
export function guiEpisode(): EpisodeData {
  const shotOf = () => ({
    file: SAMPLE.shot,
    digest: 'deadbeefcafe0011223344556677',
    windows: [{ title: 'KiCad PCB Editor', x: 0, y: 0, width: 640, height: 400, focused: true }],
  });
  const rounds = [
    round(
      1,
      [
        gui(
          0,
          { type: 'click', x: SAMPLE.click.x, y: SAMPLE.click.y },
          `click ${SAMPLE.click.x},${SAMPLE.click.y}`,
        ),
      ],
      'KiCad open',
    ),
    round(
      2,
      [
        gui(0, { type: 'drag', from: SAMPLE.drag.from, to: SAMPLE.drag.to }, 'drag 200,150 → 420,300'),
        gui(1, { type: 'double_click', x: 500, y: 60 }, 'double_click 500,60'),
      ],
      'footprint moved',
      ['misclick'],
    ),
    round(3, [gui(0, { type: 'key', keys: 'ctrl+s' }, 'key ctrl+s')], 'saved', [], 'done'),
  ];
  for (const r of rounds) if (r.observation) r.observation.screenshot = shotOf();
  return episode(
    {
      id: SAMPLE.gui,
      taskId: 'gui-kicad-board',
      agent: 'openai:gpt-4o',
      score: 0.5,
      passed: false,
      status: 'failed',
      interface: 'gui',
    },
    {
      sandboxes: ['desktop'],
      rounds,
      findings: [
        {
          mode: 'misclick',
          owner: 'agent',
          seqs: [],
          rounds: [2],
          explanation: 'double click landed on the title bar',
          detector: 'gui',
        },
      ],
      family: {
        parent: null,
        children: [
          { episodeId: SAMPLE.fork, round: 2 },
          { episodeId: 'ep-elsewhere', round: 1 },
        ],
      },
    },
  );
}

/** The fork of the GUI episode, from its round 2. */
export function forkEpisode(): EpisodeData {
  return episode(
    {
      id: SAMPLE.fork,
      taskId: 'gui-kicad-board',
      agent: 'scripted',
      score: 1,
      passed: true,
      status: 'passed',
      interface: 'gui',
    },
    {
      sandboxes: ['desktop'],
      rounds: [round(3, [gui(0, { type: 'key', keys: 'ctrl+s' }, 'key ctrl+s')], 'saved', [], 'done')],
      family: { parent: { episodeId: SAMPLE.gui, round: 2 }, children: [] },
    },
  );
}

/** 1,000 rounds over two sandboxes, a hand-off every 50 rounds, a finding every 97. */
export function longEpisode(n = 1000): EpisodeData {
  const rounds: RoundData[] = [];
  for (let r = 1; r <= n; r++) {
    const sb = r % 3 === 0 ? 'fem' : 'cad';
    const fail = r % 41 === 0;
    rounds.push(
      round(
        r,
        [shell(0, sb, `step --round ${r} --refine`, `ok round ${r}`, fail ? 2 : 0)],
        `state after round ${r}`,
        r % 97 === 0 ? ['ignored_error'] : [],
      ),
    );
  }
  const cited = rounds.filter((r) => r.modes.length).map((r) => r.round);
  return episode(
    {
      id: SAMPLE.long,
      taskId: 'gmsh-bracket',
      agent: 'openai:gpt-4o',
      score: 0.2,
      passed: false,
      status: 'failed',
      interface: 'cli',
    },
    {
      sandboxes: ['cad', 'fem'],
      rounds,
      handoffs: Array.from({ length: n / 50 }, (_, i) =>
        handoff((i + 1) * 50, `mesh-${i}.stl`, 'fem', { stage: 'mesh', passed: i % 4 !== 3 }),
      ),
      findings: [
        {
          mode: 'ignored_error',
          owner: 'agent',
          seqs: [],
          rounds: cited,
          explanation: 'kept going after failing commands',
          detector: 'exit-codes',
        },
      ],
      trace: {
        source: 'reverified',
        series: [
          {
            criterion: 'mesh_quality',
            points: Array.from({ length: n / 10 }, (_, i) => ({
              round: (i + 1) * 10,
              passed: i < 60,
              score: i < 60 ? 1 : 0,
              measured: 0.9 - i * 0.004,
              source: 'snapshot',
            })),
            lastRight: 600,
            firstWrong: 610,
          },
        ],
      },
    },
  );
}
