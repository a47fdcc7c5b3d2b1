/**
 * `dxf.drawing` and `drafting.score` on drawings written by ezdxf (the reference plate, an
 * alternative drawn with LINEs, aligned dimensions and MTEXT) and on defective ones (missing
 * dimensions, moved geometry, truncated, binary, empty, not a DXF); and the AutoCAD-Bench formula.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { draftingScore } from '../../verifiers/drafting/index.js';
import { plainMtext } from '../../verifiers/drafting/dxf-read.js';
import { verifyCriterion, type Verdict } from '../../verifiers/index.js';
import { contextFor, makeWithTool, tempDir, toolKit, writeFiles } from '../helpers/artifacts.js';

const plate = (o: { dims?: boolean; top?: number; lines?: boolean } = {}): string => `
import ezdxf
doc = ezdxf.new("R2010", setup=True)
doc.layers.add("OUTLINE", color=7)
doc.layers.add("HOLES", color=1)
doc.layers.add("CENTER", color=4, linetype="CENTER")
${o.dims === false ? '' : 'doc.layers.add("DIMENSIONS", color=3)'}
doc.layers.add("TITLE", color=2)
msp = doc.modelspace()
pts = [(0, 0), (120, 0), (120, ${o.top ?? 80}), (0, ${o.top ?? 80})]
${
  o.lines === true
    ? 'for a, b in zip(pts, pts[1:] + pts[:1]): msp.add_line(a, b, dxfattribs={"layer": "OUTLINE"})'
    : 'msp.add_lwpolyline(pts, close=True, dxfattribs={"layer": "OUTLINE"})'
}
for x, y in [(15, 15), (105, 15), (15, 65), (105, 65)]:
    msp.add_circle((x, y), 5, dxfattribs={"layer": "HOLES"})
msp.add_circle((60, 40), 15, dxfattribs={"layer": "HOLES"})
msp.add_arc((60, 40), 20, 0, 90, dxfattribs={"layer": "CENTER"})
msp.add_line((60, 20), (60, 60), dxfattribs={"layer": "CENTER"})
${
  o.dims === false
    ? ''
    : o.lines === true
      ? `d = {"layer": "DIMENSIONS"}
msp.add_aligned_dim(p1=(0, 80), p2=(120, 80), distance=20, dxfattribs=d).render()
msp.add_aligned_dim(p1=(0, 0), p2=(0, 80), distance=15, dxfattribs=d).render()
msp.add_diameter_dim(center=(60, 40), radius=15, angle=135, dxfattribs=d).render()
msp.add_radius_dim(center=(15, 15), radius=5, angle=225, dxfattribs=d).render()`
      : `d = {"layer": "DIMENSIONS"}
msp.add_linear_dim(base=(60, -15), p1=(0, 0), p2=(120, 0), dxfattribs=d).render()
msp.add_linear_dim(base=(135, 40), p1=(120, 0), p2=(120, 80), angle=90, dxfattribs=d).render()
msp.add_diameter_dim(center=(60, 40), radius=15, angle=45, dxfattribs=d).render()
msp.add_radius_dim(center=(105, 65), radius=5, angle=45, dxfattribs=d).render()`
}
${
  o.lines === true
    ? 'msp.add_mtext("{\\\\fArial|b1;MOUNTING PLATE}\\\\PSCALE 1:1", dxfattribs={"layer": "TITLE"}).set_location((0, -30))'
    : 'msp.add_text("MOUNTING PLATE", dxfattribs={"layer": "TITLE", "height": 5}).set_pos((0, -35))\nmsp.add_text("SCALE 1:1", dxfattribs={"layer": "TITLE"}).set_pos((0, -45))'
}
doc.saveas("out.dxf")
`;

const GEOMETRY = [
  {
    polyline: {
      points: [
        [0, 0],
        [120, 0],
        [120, 80],
        [0, 80],
      ],
      closed: true,
    },
    layer: 'OUTLINE',
  },
  ...[
    [15, 15],
    [105, 15],
    [15, 65],
    [105, 65],
  ].map((c) => ({ circle: { center: c, diameter: 10 }, layer: 'HOLES' })),
  { circle: { center: [60, 40], radius: 15 }, layer: 'HOLES' },
];
const DIMENSIONS = [
  { value: 120 },
  { value: 80 },
  { value: 30, kind: 'diameter' },
  { value: 5, kind: 'radius' },
];
const LAYERS = [
  { name: 'OUTLINE', color: 7 },
  { name: 'HOLES', color: 1 },
  { name: 'CENTER', color: 4, linetype: 'CENTER' },
  { name: 'DIMENSIONS', color: 3 },
  { name: 'TITLE', color: 2 },
];
const SPEC = {
  geometry: GEOMETRY,
  dimensions: DIMENSIONS,
  annotations: ['MOUNTING PLATE', 'SCALE 1:1'],
  layers: LAYERS,
};

/** Angular and ordinate dimensions; one has a stored measurement (group 42) of 999 written over. */
const ANGLES = `
import ezdxf
doc = ezdxf.new("R2010", setup=True)
msp = doc.modelspace()
msp.add_line((0, 0), (50, 0))
msp.add_line((0, 0), (40, 30))
dim = msp.add_angular_dim_2l(base=(30, 20), line1=((0, 0), (50, 0)), line2=((0, 0), (40, 30)))
dim.render()
dim.dimension.dxf.actual_measurement = 999
msp.add_angular_dim_3p(base=(10, 30), center=(0, 0), p1=(50, 0), p2=(0, 50)).render()
msp.add_angular_dim_3p(base=(-20, -20), center=(0, 0), p1=(0, 50), p2=(50, 0)).render()
msp.add_ordinate_x_dim(feature_location=(120, 30), offset=(0, 20), origin=(10, 0)).render()
msp.add_ordinate_y_dim(feature_location=(120, 30), offset=(20, 0), origin=(0, 5)).render()
msp.add_linear_dim(base=(60, -15), p1=(0, 0), p2=(120, 0), text="<> mm").render()
doc.saveas("out.dxf")
`;

const kit = toolKit('verifiers-drafting');
let dir: { path: string } & AsyncDisposable;

beforeAll(async () => {
  dir = await tempDir('drafting');
  const dxf = (src: string) => makeWithTool(kit.runTool, 'python3 make.py', { 'make.py': src }, 'out.dxf');
  const ref = await dxf(plate());
  await writeFiles(dir.path, {
    'plate.dxf': ref,
    'alt.dxf': await dxf(plate({ lines: true })),
    'no-dims.dxf': await dxf(plate({ dims: false })),
    'tall.dxf': await dxf(plate({ top: 90 })),
    'angles.dxf': await dxf(ANGLES),
    'truncated.dxf': ref.subarray(0, Math.floor(ref.length / 2)),
    'binary.dxf': Buffer.concat([Buffer.from('AutoCAD Binary DXF\r\n\x1a\x00'), Buffer.alloc(100)]),
    'text.dxf': Buffer.from('hello\n'),
    'empty.dxf': Buffer.alloc(0),
    'broken.dxf': Buffer.from('0\nSECTION\n2\nENTITIES\n0\nCIRCLE\n10\nnot-a-number\n0\nENDSEC\n0\nEOF\n'),
  });
}, 300_000);

afterAll(async () => {
  await dir?.[asyncDispose]();
  await kit[asyncDispose]();
});

function check(verifier: string, deliverable: string, params: Record<string, unknown>): Promise<Verdict> {
  return verifyCriterion(contextFor(kit, dir.path), {
    id: 'c',
    verifier,
    deliverable,
    role: 'check',
    params,
  });
}
const drawing = (file: string, params: Record<string, unknown>) => check('dxf.drawing', file, params);

describe('dxf.drawing on the reference plate and an alternative drawing', () => {
  it.each(['plate.dxf', 'alt.dxf'])(
    '%s has the layers, geometry, dimensions, texts and extents',
    async (f) => {
      for (const params of [
        { check: 'layers', expected: LAYERS },
        { check: 'geometry', expected: GEOMETRY },
        { check: 'dimensions', expected: DIMENSIONS },
        { check: 'texts', expected: ['mounting plate', '/SCALE 1:\\d/'] },
        { check: 'extents', expected: [120, 80], min: [0, 0] },
        {
          check: 'entities',
          expected: [{ type: 'CIRCLE', layer: 'HOLES', min: 5, max: 5 }, { type: 'ARC' }],
        },
      ]) {
        const v = await drawing(f, params);
        expect(v.passed, `${params.check}: ${v.reason}`).toBe(true);
      }
    },
  );
  it('measures dimension values from the definition points', async () => {
    const v = await drawing('plate.dxf', { check: 'dimensions', expected: [{ value: 120 }] });
    expect(v.measured).toEqual([
      { kind: 'linear', value: 120, layer: 'DIMENSIONS' },
      { kind: 'linear', value: 80, layer: 'DIMENSIONS' },
      { kind: 'diameter', value: 30, layer: 'DIMENSIONS' },
      { kind: 'radius', value: 5, layer: 'DIMENSIONS' },
    ]);
  });
});

describe('dxf.drawing measures every dimension kind from its definition points', () => {
  it('angular (two lines, three points, either side) and ordinate (X and Y); never group 42', async () => {
    const v = await drawing('angles.dxf', {
      check: 'dimensions',
      expected: [
        { value: 36.8699, kind: 'angular', tol: 0.001 },
        { value: 90, kind: 'angular' },
        { value: 270, kind: 'angular' },
        { value: 110, kind: 'ordinate' },
        { value: 25, kind: 'ordinate' },
        { value: 120, kind: 'linear' },
      ],
    });
    expect(v.passed, v.reason).toBe(true);
    expect(v.measured).toContainEqual({ kind: 'angular', value: 36.869898, layer: '0' });
    const stored = await drawing('angles.dxf', { check: 'dimensions', expected: [{ value: 999 }] });
    expect(stored.reason).toMatch(/0 of 1 dimensions as expected; missing or wrong: dimension 999/);
  });
});

describe('dxf.drawing fails wrong drawings for the intended reason', () => {
  it('missing dimensions and their layer', async () => {
    const v = await drawing('no-dims.dxf', { check: 'dimensions', expected: DIMENSIONS });
    expect(v.reason).toMatch(/0 of 4 dimensions as expected; missing or wrong: dimension 120; dimension 80/);
    expect((await drawing('no-dims.dxf', { check: 'layers', expected: LAYERS })).reason).toMatch(
      /layer DIMENSIONS; layer DIMENSIONS colour 3/,
    );
  });
  it('moved geometry, wrong extents and a wrong layer', async () => {
    const g = await drawing('tall.dxf', { check: 'geometry', expected: GEOMETRY });
    expect(g.reason).toMatch(/5 of 6 geometry as expected; missing or wrong: closed polyline/);
    expect((await drawing('tall.dxf', { check: 'extents', expected: [120, 80] })).reason).toMatch(
      /off by up to 10/,
    );
    const l = await drawing('plate.dxf', {
      check: 'geometry',
      expected: [{ circle: { center: [60, 40], radius: 15 }, layer: 'OUTLINE' }],
    });
    expect(l.reason).toMatch(/on the wrong layer/);
  });
  it.each([
    ['truncated.dxf', /truncated DXF/],
    ['binary.dxf', /binary DXF is not supported/],
    ['text.dxf', /not a DXF file/],
    ['empty.dxf', /deliverable empty.dxf is empty/],
    ['broken.dxf', /.*/],
  ])('%s fails with the reason', async (f, reason) => {
    const v = await drawing(f, { check: 'geometry', expected: GEOMETRY });
    expect(v).toMatchObject({ passed: false, score: 0 });
    expect(v.reason).toMatch(reason);
  });
});

describe('drafting.score', () => {
  const score = (f: string) => check('drafting.score', f, { spec: SPEC });
  it('the reference and the alternative score 100', async () => {
    for (const f of ['plate.dxf', 'alt.dxf']) {
      const v = await score(f);
      expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
      expect(v.measured).toMatchObject({
        geometry: 1,
        dimensions: 1,
        annotations: 1,
        presentation: 1,
        raw: 100,
        score: 100,
      });
    }
  });
  // Presentation: 11 layer items (5 present, 5 colours, 1 linetype) + 6 geometry-on-layer items;
  // the missing layer costs its presence and its colour.
  it('no dimensions (and no DIMENSIONS layer): 60 + 0 + 10 + 5·(15/17) < 75', async () => {
    const v = await score('no-dims.dxf');
    expect(v.passed).toBe(false);
    expect(v.measured).toMatchObject({ geometry: 1, dimensions: 0, annotations: 1 });
    expect((v.measured as { presentation: number }).presentation).toBeCloseTo(15 / 17, 9);
    expect((v.measured as { score: number }).score).toBeCloseTo(60 + 10 + (5 * 15) / 17, 6);
  });
  it('moved geometry is capped by 35 + 0.65·geometry', async () => {
    const v = await score('tall.dxf');
    const m = v.measured as { geometry: number; cap: number; score: number; raw: number };
    expect(m.geometry).toBeCloseTo(5 / 6, 9);
    expect(m.cap).toBeCloseTo(35 + 65 * (5 / 6), 6);
    expect(m.score).toBe(Math.min(m.raw, m.cap));
    expect(v.passed).toBe(m.score >= 75);
  });
  it('a truncated file scores 0 with the reason', async () => {
    expect(await score('truncated.dxf')).toMatchObject({
      passed: false,
      score: 0,
      reason: expect.stringMatching(/truncated DXF/),
    });
  });
});

describe('the AutoCAD-Bench formula', () => {
  it.each([
    [{ geometry: 1, dimensions: 1, annotations: 1, presentation: 1 }, 100, 100, true],
    [{ geometry: 1, dimensions: 0, annotations: 1, presentation: 1 }, 75, 75, true],
    [{ geometry: 1, dimensions: 0, annotations: 1, presentation: 0.8 }, 74, 74, false],
    // raw 30 + 25 + 10 + 5 = 70, cap 35 + 32.5 = 67.5
    [{ geometry: 0.5, dimensions: 1, annotations: 1, presentation: 1 }, 70, 67.5, false],
    // raw 0.6·60 + 25 + 10 + 5 = 76, cap 35 + 39 = 74: good dimensions cannot rescue wrong geometry
    [{ geometry: 0.6, dimensions: 1, annotations: 1, presentation: 1 }, 76, 74, false],
    [{ geometry: 0, dimensions: 1, annotations: 1, presentation: 1 }, 40, 35, false],
    // Out-of-range parts are clamped: NaN → 0, 2 → 1, −1 → 0.
    [{ geometry: Number.NaN, dimensions: 2, annotations: -1, presentation: 1 }, 30, 30, false],
  ])('%j → raw %d, score %d', (parts, raw, score, completed) => {
    const s = draftingScore(parts);
    expect(s.raw).toBeCloseTo(raw, 9);
    expect(s.score).toBeCloseTo(score, 9);
    expect(s.completed).toBe(completed);
  });
});

describe('MTEXT cleanup', () => {
  it('drops formatting codes and turns \\P into new lines', () => {
    expect(plainMtext('{\\fArial|b1;MOUNTING PLATE}\\PSCALE 1:1')).toBe('MOUNTING PLATE\nSCALE 1:1');
    expect(plainMtext('\\H2.5;\\C1;A\\~B \\S1/2;')).toBe('AB 1/2');
  });
});
