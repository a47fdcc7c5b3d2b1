/**
 * `file.format`: content sniffing of STL (binary and ASCII, made by OpenSCAD), SPICE netlists and
 * Verilog; wrong, empty, truncated and missing files fail with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { verifyCriterion } from '../../verifiers/index.js';
import { contextFor, makeWithTool, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const RC = '* RC low-pass\nV1 in 0 DC 0 AC 1\nR1 in out 1.59k\nC1 out 0 100n\n.end\n';
const COUNTER = `// counter
module counter(input clk, input rst, input en, output reg [3:0] q, output tc);
  assign tc = en && (q == 4'd9);
  always @(posedge clk) if (rst) q <= 0; else if (en) q <= (q == 9) ? 0 : q + 1;
endmodule
`;

const kit = toolKit('verifiers-file');
let dir: { path: string } & AsyncDisposable;

beforeAll(async () => {
  dir = await tempDir('file');
  const scad = 'difference() { cube(10); translate([5, 5, -1]) cylinder(d = 4, h = 12); }';
  const ascii = await makeWithTool(kit.runTool, 'openscad -o a.stl p.scad', { 'p.scad': scad }, 'a.stl');
  const binary = await makeWithTool(
    kit.runTool,
    'openscad --export-format binstl -o b.stl p.scad',
    { 'p.scad': scad },
    'b.stl',
  );
  await writeFiles(dir.path, {
    'ascii.stl': ascii,
    'binary.stl': binary,
    'cut.stl': binary.subarray(0, binary.length - 20),
    'verilog.stl': COUNTER,
    'filter.cir': RC,
    'filter.sp': RC.replace('* RC low-pass', '* Title\n* comment'),
    'no-end.cir': RC.replace('.end\n', ''),
    'only-title.cir': '* a title only\n.end\n',
    'counter.v': COUNTER,
    'not-verilog.v': 'always @(posedge clk) q <= q + 1;\n',
    'commented.v': '// module fake; endmodule\n/* module x; endmodule */\nwire w;\n',
    'notes.txt': 'anything',
    'empty.cir': '',
  });
});
afterAll(async () => {
  await dir[asyncDispose]();
  await kit[asyncDispose]();
});

const verify = (deliverable: string, format?: string) =>
  verifyCriterion(contextFor(kit, dir.path), {
    id: 'format',
    verifier: 'file.format',
    deliverable,
    role: 'check',
    params: {},
    ...(format === undefined ? {} : { format }),
  });

describe('file.format passes files of their format', () => {
  it.each([
    ['ascii.stl', 'stl', /ASCII STL/],
    ['binary.stl', 'stl', /binary STL, \d+ triangles/],
    ['filter.cir', 'cir', /SPICE netlist, 3 element line\(s\), \.end/],
    ['filter.sp', 'spice', /SPICE netlist/],
    ['counter.v', 'v', /module\(s\): counter/],
    ['notes.txt', 'txt', /8 bytes/],
  ])('%s as %s', async (file, format, seen) => {
    const v = await verify(file, format);
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    expect(v.measured).toMatch(seen);
  });
  it('takes the format from params, else the declared format, else the extension', async () => {
    expect((await verify('counter.v')).expected).toBe('verilog');
    const v = await verifyCriterion(contextFor(kit, dir.path), {
      id: 'f',
      verifier: 'file.format',
      deliverable: 'counter.v',
      role: 'check',
      params: { format: 'stl' },
      format: 'v',
    });
    expect(v.passed).toBe(false);
  });
});

describe('file.format fails wrong, broken and missing files for the reason', () => {
  it.each([
    ['verilog.stl', 'stl', /not an STL/],
    ['cut.stl', 'stl', /truncated binary STL/],
    ['no-end.cir', 'cir', /no \.end line/],
    ['only-title.cir', 'cir', /no element lines/],
    ['counter.v', 'cir', /not a SPICE netlist/],
    ['not-verilog.v', 'v', /no "module … endmodule"/],
    ['commented.v', 'v', /no "module … endmodule"/],
    ['empty.cir', 'cir', /deliverable empty.cir is empty/],
    ['gone.stl', 'stl', /deliverable gone.stl is missing/],
  ])('%s as %s', async (file, format, reason) => {
    const v = await verify(file, format);
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(reason);
  });
});
