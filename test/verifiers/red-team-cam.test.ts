/**
 * Red team of `gcode.check`: each attempt is a real file (sliced by PrusaSlicer or CuraEngine in
 * engiloop/cli, or made by the cam-cnc-pocket task's generator) that an agent edited to pass while
 * being wrong: a header that claims a print within budget, moves cut out under an intact header,
 * features relabelled as skirt, a raft passed off as start G-code, machine limits raised to shorten the print, a retraction that
 * "gives filament back", comments claiming a tool and a feed. The verifier recomputes from the
 * moves; each attempt fails with a reason that names it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';
import {
  cutCuraLayers,
  cutLayers,
  dropFirstMarkers,
  forgeHeader,
  insertAfter,
  insertBefore,
  pocketProgram,
  relabelAbove,
  slice,
} from '../fixtures/cam/make-gcode.js';

const kit = toolKit('verifiers-red-team-cam');
let dir: { path: string } & AsyncDisposable;

beforeAll(async () => {
  dir = await tempDir('red-team-cam');
  const g = await slice(kit, ['prusa.gcode', 'solid.gcode', 'tall.gcode', 'cura.gcode', 'raft.gcode']);
  const pocket = await pocketProgram(kit);
  // solid infill (13.2 cm³, 58m 42s) under the budget reference's claims (5.33 cm³, 30m 57s)
  const forged = forgeHeader(g['solid.gcode'], g['prusa.gcode']);
  await writeFiles(dir.path, {
    'forged-header.gcode': forged,
    // …and a machine that would print it in time, set in the start G-code
    'fast-machine.gcode': insertAfter(forged, /^G21 /, [
      'M201 X50000 Y50000 Z5000 E50000',
      'M203 X3000 Y3000 Z200 E500',
      'M204 S50000 T50000',
      'M205 X200 Y200 Z10 E50',
    ]),
    // …or a final 5 m retraction that brings the E sum within budget
    'retracted.gcode': insertBefore(g['solid.gcode'], /^; Filament-specific end gcode/, ['G1 E-5000 F2400']),
    'cura-cut.gcode': cutCuraLayers(g['cura.gcode'], 30),
    'prusa-cut.gcode': cutLayers(g['prusa.gcode'], 21, 31),
    // the 14 mm stale part with everything above 12 mm labelled skirt, which the envelope leaves out
    'relabelled.gcode': relabelAbove(g['tall.gcode'], 12),
    // the raft's three layer markers deleted, so the raft (wider than the part) reads as start G-code
    'raft-unmarked.gcode': dropFirstMarkers(g['raft.gcode'], 3),
    // T3 and F3000 in the code, T1 and F600 in a comment
    'claims.nc': pocket
      .replace('T1 M6', 'T3 M6')
      .replaceAll('F600', 'F3000')
      .replace('G21 G90 G17', '(T1: 6 mm flat end mill, feed F600 mm/min)\nG21 G90 G17'),
  });
}, 300_000);
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

const check = (deliverable: string, params: Record<string, unknown>): Promise<Verdict> =>
  verifyCriterion(contextFor(kit, dir.path), {
    id: 'g',
    verifier: 'gcode.check',
    deliverable,
    role: 'check',
    params,
  });
const failing = async (
  deliverable: string,
  params: Record<string, unknown>,
  reason: RegExp,
): Promise<Verdict> => {
  const v = await check(deliverable, params);
  expect(v.passed, v.reason).toBe(false);
  expect(v.reason).toMatch(reason);
  return v;
};

describe('red team: gcode.check recomputes from the moves, never from what the file says', () => {
  it('a header edited to claim a within-budget filament and time', async () => {
    await failing(
      'forged-header.gcode',
      { check: 'header' },
      /PrusaSlicer header does not match the moves: header claims 2\.2143 m of filament \(line \d+\), the moves extrude 5\.478\d* m .*header claims 30m 57s of printing \(line \d+\), the moves take 58m 4\ds .*→ a forged or stale header/,
    );
    await failing(
      'forged-header.gcode',
      { check: 'extruded_volume', range: { max: 7000 } },
      /filament extruded = 1317\d\.\d* mm³ .*the header claims 5330 mm³ \("filament used \[cm3\] = 5\.33", line \d+\), 147 % off the moves: not evidence/,
    );
    await failing(
      'forged-header.gcode',
      { check: 'print_time', range: { max: 2400 } },
      /print time recomputed from the moves = 352\d\.\d* s .*the header claims 30m 57s .*not evidence/,
    );
  });

  it('machine limits raised in the start G-code to make the print look fast', async () => {
    const v = await failing(
      'fast-machine.gcode',
      { check: 'print_time', range: { max: 2400 } },
      /limits the file sets above the machine's are ignored \(a file cannot make the printer faster\): M201 X50000 \(machine 9000\).*M204 S50000 \(machine 1500\) T50000 \(machine 1500\)/,
    );
    expect((v.measured as { seconds: number }).seconds).toBeGreaterThan(3400);
    await failing(
      'fast-machine.gcode',
      { check: 'header' },
      /header claims 30m 57s of printing .*the moves take 58m/,
    );
  });

  it('a final 5 m retraction to bring the E sum within budget', async () => {
    const v = await failing(
      'retracted.gcode',
      { check: 'extruded_volume', range: { max: 7000 } },
      /the E values sum to only -?[\d.]+ mm: 5\d{3}(\.\d+)? mm retracted and never re-primed gives no filament back/,
    );
    expect(v.measured as number).toBeGreaterThan(13000);
  });

  it('CuraEngine layers cut out, the header (;LAYER_COUNT:79) and end G-code kept', async () => {
    await failing(
      'cura-cut.gcode',
      { check: 'complete' },
      /extrusion stops at layer 30 of 79 \(z 4\.65\): ;LAYER_COUNT \(line 34\) declares 79/,
    );
    await failing(
      'cura-cut.gcode',
      { check: 'header', require: [] },
      /header declares 79 layers \(line 34\), the moves print 30/,
    );
    await failing(
      'cura-cut.gcode',
      { check: 'envelope', size: [40, 30, 11.7], abs_tol: 0.6 },
      /size Z 4\.35 vs 11\.7 ± 0\.6/,
    );
  });

  it('PrusaSlicer layers cut out of the middle, the footer’s claims kept', async () => {
    await failing(
      'prusa-cut.gcode',
      { check: 'header' },
      /header claims 2\.2143 m of filament \(line \d+\), the moves extrude 1\.9\d* m \(1\d\.\d % apart\).*a forged or stale header/,
    );
    await failing('prusa-cut.gcode', { check: 'complete' }, /no extrusion between Z 4 and Z 6\.2/);
  });

  it('the layers above the part’s height relabelled ;TYPE:Skirt/Brim to leave the envelope', async () => {
    await failing(
      'relabelled.gcode',
      { check: 'envelope', expected: { min: [80, 85, 0.2], max: [120, 115, 12] }, abs_tol: 0.5 },
      /max Z 14 vs 12 ± 0\.5 \(off by 2\); \d+ moves labelled ;TYPE:skirt\/brim lie above the lowest 3 layers \(Z 0\.6\), where no skirt or brim is printed: the label is not believed and they are counted/,
    );
  });

  it('the layer markers of a raft deleted so that it reads as start G-code', async () => {
    await failing(
      'raft-unmarked.gcode',
      { check: 'envelope', expected: { min: [80, 85, 0.2], max: [120, 115, 12] }, abs_tol: 0.5 },
      /min X 74\.165 vs 80 ± 0\.5 .*; the moves before the first layer marker \(line \d+\) extrude 19\.\d % of the filament, more than a start sequence's 10 %: the marker is not believed and they are counted/,
    );
  });

  it('a CNC comment claiming the tool and feed the task asks for', async () => {
    await failing(
      'claims.nc',
      { check: 'tool_changes', tools: [1] },
      /T3 \(line \d+\) → want tools T1; a comment \(line 3: "T1: 6 mm flat end mill, feed F600 mm\/min"\) claims T1, which the program never loads: comments are not evidence/,
    );
    await failing(
      'claims.nc',
      { check: 'feeds', range: { min: 100, max: 1000 } },
      /span 200–3000 mm\/min .*claims F600, which no cutting move uses: comments are not evidence/,
    );
    await failing(
      'claims.nc',
      { check: 'envelope', within: { min: [33, 23, -5], max: [67, 37, 5] }, tool: 'T1' },
      /no cutting moves of tool T1 .*tools used: T3/,
    );
  });
});
