/**
 * The failure-mode detectors on recorded episodes: logs of real runs (real nats-server, Docker and
 * verifiers; test/fixtures/analysis/record.ts) with scripted agents that fail on purpose, each
 * labelled by hand in labels.json. For every fixture the modes found are exactly the labelled ones
 * — none on the clean references — and every finding cites events and rounds that exist. Plus the
 * pure helpers the detectors use: `missOf` / `describeMiss` and `writes()`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DETECTORS, detect } from '../../actors/analysis/detect.js';
import { summarizeEpisode } from '../../actors/analysis/summary.js';
import { unverifiedDetector, writes } from '../../actors/analysis/detectors/unverified.js';
import { describeMiss, formatTarget, missOf, type Miss } from '../../actors/analysis/numeric.js';
import { MODES, type Finding, type ModeId } from '../../actors/analysis/taxonomy.js';
import { episodeView, type EpisodeView } from '../../actors/analysis/view.js';
import { decodeEvent, type EpisodeEvent } from '../../streams/index.js';

const DIR = join(import.meta.dirname, '../fixtures/analysis');
const labels = JSON.parse(readFileSync(join(DIR, 'labels.json'), 'utf8')) as Record<
  string,
  { modes: ModeId[]; why: Record<string, string> }
>;

function events(name: string): EpisodeEvent[] {
  return readFileSync(join(DIR, `${name}.b64`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => decodeEvent(Buffer.from(l, 'base64')));
}
const view = (name: string): EpisodeView => episodeView(events(name));
const found = (name: string): Finding[] => detect(view(name));
const one = (name: string, mode: ModeId): Finding => {
  const fs = found(name).filter((f) => f.mode === mode);
  expect(fs, `${name}: one ${mode}`).toHaveLength(1);
  return fs[0]!;
};

const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.b64'))
  .map((f) => f.slice(0, -'.b64'.length))
  .sort();

describe('recorded fixtures against their hand labels', () => {
  it('every fixture is labelled, every label has a fixture, every label is a known mode with a reason', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(12);
    expect(Object.keys(labels).sort()).toEqual(fixtures);
    for (const [name, l] of Object.entries(labels)) {
      for (const m of l.modes) {
        expect(MODES, `${name}: ${m}`).toHaveProperty([m]);
        expect(l.why[m], `${name}: why ${m}`).toMatch(/\w{3}/);
      }
    }
  });

  it.each(fixtures)('%s: the modes found are exactly the labelled ones', (name) => {
    const modes = [...new Set(found(name).map((f) => f.mode))].sort();
    expect(modes).toEqual([...labels[name]!.modes].sort());
  });

  it.each(fixtures)(
    '%s: each finding cites existing events and their rounds, and explains itself',
    (name) => {
      const v = view(name);
      const roundOf = new Map(v.events.map((l) => [l.seq, l.round]));
      for (const f of detect(v)) {
        expect(f.seqs.length, f.mode).toBeGreaterThan(0);
        expect(f.seqs).toEqual([...new Set(f.seqs)].sort((a, b) => a - b));
        for (const s of f.seqs) expect(roundOf.has(s), `${f.mode} cites seq ${s}`).toBe(true);
        expect(f.rounds).toEqual([...new Set(f.seqs.map((s) => roundOf.get(s)!))].sort((a, b) => a - b));
        expect(f.owner).toBe(MODES[f.mode].owner);
        expect(f.explanation.length, f.mode).toBeGreaterThan(20);
        expect(f.explanation).not.toMatch(/\n|undefined|NaN/);
      }
    },
  );
});

describe('what the findings say', () => {
  it('near miss: names the criterion, measured, expected with its tolerance, the distance and its ratio', () => {
    const f = one('openscad-plate--near-miss', 'constraint.near_miss');
    expect(f.explanation).toBe(
      'bbox (component 1): measured 80.08, expected 80 ± 0.05 — off by 0.08 (1.6× the tolerance, 0.03 past it)',
    );
    const v = view('openscad-plate--near-miss');
    expect(v.events.find((l) => l.seq === f.seqs[0])!.event.type).toBe('verification.completed');
  });

  it('far off: the testbench fraction against its minimum, relative to the target', () => {
    const f = one('verilog-counter--off-by-one', 'constraint.far_off');
    expect(f.explanation).toMatch(
      /^testbench: measured 0\.3066, expected ≥ 1 — off by 0\.6934 \(69\.34 % of the target\)$/,
    );
  });

  it('repeated failure: cites the three executions, in rounds 1, 2 and 3, and the command', () => {
    const v = view('openscad-plate--repeated-failure');
    const f = one('openscad-plate--repeated-failure', 'loop.repeated_failure');
    expect(f.rounds).toEqual([1, 2, 3]);
    expect(f.seqs).toHaveLength(3);
    for (const s of f.seqs) expect(v.events.find((l) => l.seq === s)!.event.type).toBe('action.executed');
    expect(f.explanation).toContain('openscad -o part.stl plate.scad');
    expect(one('openscad-plate--repeated-failure', 'termination.premature_fail').explanation).toContain(
      '96 of 100 rounds left',
    );
  });

  it('no progress: the stretch of rounds 2–10 of a 10-round limit, then stuck at the limit', () => {
    expect(one('openscad-plate--no-progress', 'loop.no_progress').rounds).toEqual([2, 10]);
    expect(one('openscad-plate--no-progress', 'termination.stuck_at_limit').explanation).toContain(
      '10 round(s)',
    );
  });

  it('invalid outputs: the streak of rounds 1–3 is found, and hidden again when the episode passes', () => {
    expect(one('openscad-plate--invalid-then-fail', 'output.invalid_streak').rounds).toEqual([1, 2, 3]);
    // The detector sees the streak in the passing episode too; detect() keeps agent modes for failures.
    const pass = view('openscad-plate--invalid-then-pass');
    const raw = DETECTORS.flatMap((d) => d.detect(pass));
    expect(raw.filter((f) => f.mode === 'output.invalid_streak').map((f) => f.rounds)).toEqual([[1, 2, 3]]);
    expect(detect(pass)).toEqual([]);
  });

  it('tool feedback ignored: quotes the tool message and says DONE followed', () => {
    const f = one('openscad-plate--syntax-error', 'feedback.ignored');
    expect(f.explanation).toContain('ERROR: Parser error: syntax error in file part.scad, line 3');
    expect(f.explanation).toContain('DONE in round 3');
    expect(f.rounds).toEqual([2, 3]);
    expect(one('gasket-dxf--wrong-app', 'feedback.ignored').explanation).toContain(
      'Exception while processing file',
    );
  });

  it('hand-offs: the missing one names the file and both sandboxes; the stale one both digests', () => {
    expect(one('yosys-iverilog-gatesim--no-handoff', 'dependency.handoff_missing').explanation).toMatch(
      /needed pwm_syn\.v from synth .*never handed off/,
    );
    const stale = one('yosys-iverilog-gatesim--stale-netlist', 'dependency.handoff_stale');
    expect(stale.explanation).toMatch(/6ae038bf8f18 in round 2.*4e1bc65b932d/);
    const old = one('yosys-iverilog-gatesim--stale-netlist', 'dependency.consumed_old_version');
    expect(old.rounds).toEqual([2, 3]);
  });

  it('wrong app: the sandbox worked in, its failures, and the app not tried', () => {
    expect(one('gasket-dxf--wrong-app', 'selection.wrong_app').explanation).toBe(
      'worked in sandbox freecad (2 of its 2 commands there failed) and the deliverable failed; the task also permitted ezdxf',
    );
  });

  it('a lost sandbox is infrastructure, reported even though the episode passed', () => {
    const [f, ...rest] = found('openscad-plate--sandbox-lost');
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ mode: 'infrastructure.sandbox_lost', owner: 'infrastructure', rounds: [2] });
    expect(f!.explanation).toContain('CONTAINER_GONE during acting');
  });

  it('GUI: the two rounds whose input left the screen as it was, and the click above the window', () => {
    const f = one('librecad-plate--no-effect', 'gui.no_effect');
    expect(f.explanation).toBe('2 round(s) of input left the screen unchanged (rounds 3, 4)');
    // The inputs of rounds 3 and 4 and the observations after them; not round 2's Shift, which
    // focused the command line.
    expect(f.rounds).toEqual([3, 4, 5]);
    expect(one('librecad-plate--no-effect', 'gui.click_outside').explanation).toBe(
      '1 click(s) outside every window: (960, 12) in round 4',
    );
  });

  it('unverified DONE: names the deliverable and the round it was last written', () => {
    expect(one('verilog-counter--off-by-one', 'verification.unverified_done').explanation).toBe(
      'counter.v was last written in round 1 and not read again before DONE in round 2',
    );
    expect(unverifiedDetector.detect(view('openscad-plate--near-miss'))).toEqual([]);
  });

  it('unverified DONE: a check later in the same command line counts (the references need no filter)', () => {
    // `openscad -o part.stl part.scad && ls -l part.stl`, then DONE: read after it was written.
    for (const name of ['clean-openscad-plate', 'clean-verilog-counter', 'clean-yosys-iverilog-gatesim'])
      expect(
        DETECTORS.flatMap((d) => d.detect(view(name))),
        name,
      ).toEqual([]);
  });
});

describe('missOf / describeMiss', () => {
  const miss = (measured: unknown, expected: unknown, tolerance?: unknown): Miss | null =>
    missOf({ measured, expected, tolerance } as Parameters<typeof missOf>[0]);

  it('a value with an absolute tolerance: near within twice it, far beyond', () => {
    const near = miss(50.08, 50, { abs: 0.05 })!;
    expect(near).toMatchObject({ off: expect.closeTo(0.08, 9), tolerance: 0.05, near: true });
    expect(describeMiss(near)).toBe('1.6× the tolerance, 0.03 past it');
    expect(formatTarget(near)).toBe('50 ± 0.05');
    expect(miss(2, 1, 0.5)).toMatchObject({ ratio: 2, near: true }); // exactly twice
    expect(miss(50.11, 50, 0.05)!.near).toBe(false);
  });

  it('a relative or percentage tolerance is taken from the target', () => {
    expect(miss(101.5, 100, { rel: 0.01 })).toMatchObject({ tolerance: 1, ratio: 1.5, near: true });
    expect(miss(103, 100, '1 %')).toMatchObject({ tolerance: 1, ratio: 3, near: false });
    // abs and rel together: the larger counts.
    expect(miss(103, 100, { abs: 2, rel: 0.01 })!.tolerance).toBe(2);
  });

  it('no tolerance: relative to the target (near within 10 %), and none at all for a zero target', () => {
    const m = miss(9, 10)!;
    expect(m).toMatchObject({ tolerance: null, ratio: 0.1, near: true });
    expect(describeMiss(m)).toBe('10 % of the target');
    const zero = miss(3, 0)!;
    expect(zero).toMatchObject({ ratio: null, near: false });
    expect(describeMiss(zero)).toBe('no tolerance to compare with');
  });

  it('ranges: distance from the nearer end; a two-sided range counts its half-width', () => {
    const two = miss(22, 10, undefined);
    expect(two).toMatchObject({ off: 12 });
    const r = miss(22, { min: 10, max: 20 })!;
    expect(r).toMatchObject({ expected: [10, 20], off: 2, tolerance: 5, ratio: 0.4, near: true });
    expect(describeMiss(r)).toBe("0.4× the range's half-width outside it");
    expect(formatTarget(r)).toBe('[10, 20]');
    const low = miss(0.3066, { min_fraction: 1 })!;
    expect(low).toMatchObject({ expected: [1, null], near: false });
    expect(formatTarget(low)).toBe('≥ 1');
    expect(miss(0.95, { min_fraction: 1 })!.near).toBe(true);
  });

  it('measured objects: the first of the known value keys', () => {
    expect(miss({ passed: 42, total: 137, fraction: 0.5 }, { min_fraction: 1 })!.measured).toBe(0.5);
    expect(miss({ volume: 99 }, 100, { rel: 0.005 })!.ratio).toBeCloseTo(2, 9);
  });

  it('vectors: the component furthest off, in tolerances; sorted first for any orientation', () => {
    const m = miss([80.08, 50, 6.03], [80, 50, 6], { abs: 0.05 })!;
    expect(m).toMatchObject({ measured: 80.08, expected: 80, component: 0, near: true });
    expect(miss([80, 50.2, 6], [80, 50, 6], { abs: 0.05 })).toMatchObject({ component: 1, near: false });
    // Rotated part: 50 × 80 × 6 against 80 × 50 × 6 matches once sorted; only Z (6.04) is off.
    const turned = miss([50, 80, 6.04], [80, 50, 6], { abs: 0.05, any_orientation: true })!;
    expect(turned).toMatchObject({ measured: 6.04, expected: 6, component: 0 });
    expect(turned.off).toBeCloseTo(0.04, 9);
  });

  it('not numeric: booleans, strings, mismatched or empty vectors, non-finite numbers', () => {
    expect(miss(false, true)).toBeNull();
    expect(miss('ASCII STL', 'stl', 'content sniff')).toBeNull();
    expect(miss({ equivalent: false, unproven: 8 }, { equivalent_to: 'ref.v' })).toBeNull();
    expect(miss([1, 2], [1, 2, 3], { abs: 1 })).toBeNull();
    expect(miss([], [], { abs: 1 })).toBeNull();
    expect(miss(Number.NaN, 1)).toBeNull();
    expect(miss(1, Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe('writes()', () => {
  it('redirections, tee, output options, copies', () => {
    expect(writes('cat > part.scad <<EOF\ncube(1);\nEOF', 'part.scad')).toBe(true);
    expect(writes('echo x >> log.txt', 'log.txt')).toBe(true);
    expect(writes('make | tee -a build/log.txt', 'log.txt')).toBe(true);
    expect(writes('openscad -o part.stl part.scad', 'part.stl')).toBe(true);
    expect(writes('openscad -o /workspace/part.stl part.scad', 'part.stl')).toBe(true);
    expect(writes('gmsh -3 m.geo -o=mesh.msh', 'mesh.msh')).toBe(true);
    expect(writes('prusa-slicer --export-gcode --output mount.gcode mount.stl', 'mount.gcode')).toBe(true);
    expect(writes('cp /tmp/a.stl part.stl', 'part.stl')).toBe(true);
  });

  it('save / export / write calls, nested parentheses included', () => {
    expect(writes('doc.saveas("gasket.dxf")', 'gasket.dxf')).toBe(true);
    expect(writes("bpy.ops.export_scene.gltf(filepath='/workspace/scene.glb')", 'scene.glb')).toBe(true);
    expect(writes('importDXF.export([doc.getObject("Outer")], "/workspace/gasket.dxf")', 'gasket.dxf')).toBe(
      true,
    );
    expect(writes('mesh.write("out.vtk")', 'out.vtk')).toBe(true);
  });

  it('reading is not writing', () => {
    expect(writes('openscad -o part.stl part.scad', 'part.scad')).toBe(false);
    expect(writes('cat part.stl | head', 'part.stl')).toBe(false);
    expect(writes('iverilog -g2012 -o sim tb.v counter.v', 'counter.v')).toBe(false);
    expect(writes('python3 check.py part.stl > report.txt', 'part.stl')).toBe(false);
    expect(writes('ls -l part.stl', 'part.stl')).toBe(false);
    expect(writes('doc = ezdxf.readfile("gasket.dxf")', 'gasket.dxf')).toBe(false);
  });

  it('a longer name that ends like the file is another file; a name is matched literally', () => {
    expect(writes('cat > part.stl.bak', 'part.stl')).toBe(false);
    expect(writes('cat > partXstl', 'part.stl')).toBe(false);
    expect(writes('echo > old_part.stl', 'part.stl')).toBe(false);
  });

  // A command is the agent's text: a pattern run over all of it backtracked for seconds on these
  // (60 KB of `cp ` took 4 s); only a window before each mention is looked at now.
  it('hostile commands are judged on a window before each mention, quickly and still right', () => {
    expect(writes(`${'cp '.repeat(80_000)} part.stl`, 'part.stl')).toBe(true);
    expect(writes("save(' ".repeat(40_000), 'part.stl')).toBe(false);
    expect(writes('part.stl '.repeat(30_000), 'part.stl')).toBe(false);
    expect(writes(`${'x'.repeat(100_000)} > part.stl`, 'part.stl')).toBe(true);
  });
});

describe('summary facets', () => {
  it('names the apps an episode used: the app image, the app a desktop launches, the reference commands', () => {
    const apps = (name: string) => summarizeEpisode(events(name))!.facets.apps;
    expect(apps('librecad-plate--no-effect')).toEqual(['librecad']);
    expect(apps('freecad-gmsh-ccx--wrong-format')).toEqual(expect.arrayContaining(['freecad', 'gmsh']));
    expect(apps('clean-openscad-plate')).toContain('openscad');
  });
});
