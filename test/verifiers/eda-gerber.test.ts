/**
 * `gerber.check` with the criteria of tasks/workflows/kicad-drc-gerbers, on the Gerbers and drill
 * file KiCad 6.0.11 plotted when the task's reference was played (test/fixtures/eda/gerbers/divider,
 * and divider.zip as the sandbox zipped it), on valid variants (a folder, Protel names without
 * attributes, a split drill set, inch units, arc outlines) and on defective ones that must fail for
 * the intended reason (a layer missing or empty, a truncated file, a wrong outline, a layer twice,
 * a board file instead of a zip, a corrupt zip).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncDispose } from '../../core/index.js';
import { loadTask, type LoadedTask } from '../../tasks/index.js';
import {
  canonLayer,
  checkGerberPackage,
  gerberCheck,
  GerberCheckParams,
  layerOfFunction,
  layerOfName,
  parseGerber,
} from '../../verifiers/eda/gerber.js';
import { criterionProblem, verifyCriterion, type RunTool, type Verdict } from '../../verifiers/index.js';
import { verifierRules } from '../../verifiers/index.js';
import { tempDir, writeFiles } from '../helpers/artifacts.js';

const FIX = path.resolve('test/fixtures/eda/gerbers');
/** gerber.check runs no tool container. */
const noTool: RunTool = () => Promise.reject(new Error('gerber.check runs no tool'));

let task: LoadedTask;
let dir: { path: string } & AsyncDisposable;
/** The reference's files: name → text. */
let ref: Record<string, string>;
let params: Record<string, unknown>;
let n = 0;

/** Zips `files` and checks the zip with the task's `gerbers` criterion (or `p`). */
async function check(files: Record<string, string>, p = params): Promise<Verdict> {
  const zip = new JSZip();
  for (const [name, text] of Object.entries(files)) zip.file(name, text);
  return checkBytes(await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }), p);
}

async function checkBytes(bytes: Buffer | string, p = params): Promise<Verdict> {
  const art = path.join(dir.path, `a${n++}`);
  await writeFiles(art, { 'gerbers.zip': bytes });
  return verifyCriterion(
    { artifactsDir: art, taskDir: task.dir, runTool: noTool },
    { id: 'gerbers', verifier: 'gerber.check', role: 'check', deliverable: 'gerbers.zip', params: p },
  );
}

/** The reference without `name`, or with `name` replaced. */
const edit = (name: string, text?: string): Record<string, string> => {
  const out = { ...ref };
  if (text === undefined) delete out[name];
  else out[name] = text;
  return out;
};

/** The file's header and M02: every draw, flash and region removed. */
const emptied = (text: string) => text.replace(/^(?:X|Y|D\d|G3[67]|%TO|%TD).*\n/gm, '');

beforeAll(async () => {
  task = await loadTask(path.resolve('tasks/workflows/kicad-drc-gerbers'), {
    verifiers: verifierRules,
  });
  params = task.task.criteria.find((c) => c.id === 'gerbers')!.params;
  dir = await tempDir('gerber');
  ref = {};
  for (const f of await readdir(path.join(FIX, 'divider')))
    ref[f] = await readFile(path.join(FIX, 'divider', f), 'utf8');
});
afterAll(async () => {
  await dir[asyncDispose]();
});

describe('gerber.check on the kicad-drc-gerbers reference', () => {
  it('passes the zip the reference plotted, reading layers from the X2 file functions', async () => {
    const v = await checkBytes(await readFile(path.join(FIX, 'divider.zip')));
    expect(v, v.reason).toMatchObject({
      passed: true,
      score: 1,
      measured: { copper_layers: 2, outline: { width_mm: 30, height_mm: 20 }, other: [] },
    });
    const files = (v.measured as { files: { file: string; layer: string; via: string; objects: number }[] })
      .files;
    expect(files).toContainEqual({ file: 'board-F_Cu.gbr', layer: 'F_Cu', via: 'attribute', objects: 17 });
    expect(files).toContainEqual({ file: 'board-B_Cu.gbr', layer: 'B_Cu', via: 'attribute', objects: 5 });
    expect(files).toContainEqual({ file: 'board.drl', layer: 'Drill', via: 'content', objects: 2 });
    expect(v.reason).toMatch(
      /^gerbers\.zip \(7 fabrication file\(s\)\): ok 7 valid file\(s\); ok layers F_Cu, B_Cu, F_Mask, B_Mask, F_SilkS, Edge_Cuts, Drill present; .*ok outline 30\.00 × 20\.00 mm/,
    );
  });

  it('passes the same files as a folder (checked directly: the runner delivers regular files)', async () => {
    const v = await checkGerberPackage(path.join(FIX, 'divider'), 'divider', GerberCheckParams.parse(params));
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    // Through the verifier, a folder is not a deliverable file.
    const viaVerifier = await gerberCheck.verify(
      { artifactsDir: FIX, taskDir: task.dir, runTool: noTool },
      { id: 'g', role: 'check', deliverable: 'divider', params },
    );
    expect(viaVerifier.reason).toBe('deliverable divider is not a regular file');
  });

  it('passes Protel names without attributes, nested, with a split drill set and other files', async () => {
    const protel: Record<string, string> = { F_Cu: 'gtl', B_Cu: 'gbl', F_Mask: 'gts', B_Mask: 'gbs' };
    Object.assign(protel, { F_SilkS: 'gto', Edge_Cuts: 'gm1' });
    const files: Record<string, string> = {
      'README.txt': 'Divider board, 2 layers, 1.6 mm FR-4\n',
      'out/board.gbrjob': '{ "Header": {} }\n',
      'out/board-NPTH.drl': 'M48\nMETRIC\n%\nG90\nT0\nM30\n',
      'out/board-PTH.drl': ref['board.drl']!,
    };
    for (const [layer, ext] of Object.entries(protel))
      files[`out/board.${ext}`] = ref[`board-${layer}.gbr`]!.replace(/^%T[FAOD].*\n/gm, '');
    expect(files['out/board.gtl']).not.toMatch(/FileFunction/);
    const v = await check(files);
    expect(v, v.reason).toMatchObject({ passed: true, score: 1 });
    const measured = v.measured as { files: { file: string; via: string }[]; other: string[] };
    expect(measured.files).toContainEqual(expect.objectContaining({ file: 'out/board.gbl', via: 'name' }));
    expect(measured.other).toEqual(['README.txt', 'out/board.gbrjob']);
    expect(v.reason).toMatch(/\(8 fabrication file\(s\), 2 other\)/);
  });
});

describe('gerber.check on defective packages', () => {
  it('fails a package without B_Cu: the layer is missing and one copper layer is left', async () => {
    const v = await check(edit('board-B_Cu.gbr'));
    expect(v).toMatchObject({ passed: false, score: 3 / 5 });
    expect(v.reason).toMatch(
      /FAIL missing layer\(s\) B_Cu; FAIL 1 copper layer\(s\) \(F_Cu\), expected 2; ok F_Cu not empty/,
    );
  });

  it('fails an empty bottom copper layer (Gerbers of the first, all-top layout)', async () => {
    const v = await check(edit('board-B_Cu.gbr', emptied(ref['board-B_Cu.gbr']!)));
    expect(v).toMatchObject({ passed: false, score: 4 / 5 });
    expect(v.reason).toMatch(/FAIL B_Cu is empty \(board-B_Cu\.gbr: no draws, flashes or regions\)/);
  });

  it('fails a truncated Gerber and a file that is not RS-274X', async () => {
    const cut = ref['board-F_Cu.gbr']!.replace('M02*\n', '');
    const v = await check(edit('board-F_Cu.gbr', cut));
    expect(v.reason).toMatch(/FAIL invalid: board-F_Cu\.gbr: no end-of-file M02\* \(truncated\?\)/);
    const half = ref['board-F_Mask.gbr']!.slice(0, 300);
    const w = await check(edit('board-F_Mask.gbr', half));
    expect(w.reason).toMatch(
      /board-F_Mask\.gbr: an extended command \(%…%\) is not closed|board-F_Mask\.gbr: text after the last/,
    );
    const x = await check(edit('board-F_SilkS.gbr', 'solid part\nfacet normal 0 0 1\n'));
    expect(x).toMatchObject({ passed: false });
    expect(x.reason).toMatch(/board-F_SilkS\.gbr: no format statement %FS…\*%: not RS-274X/);
  });

  it('fails a wrong outline and measures it in mm', async () => {
    const big = ref['board-Edge_Cuts.gbr']!.replaceAll('X130000000', 'X140000000').replaceAll(
      'Y-120000000',
      'Y-125000000',
    );
    const v = await check(edit('board-Edge_Cuts.gbr', big));
    expect(v).toMatchObject({ passed: false, measured: { outline: { width_mm: 40, height_mm: 25 } } });
    expect(v.reason).toMatch(/FAIL outline 40\.00 × 25\.00 mm \(expected 30 × 20 ± 0\.1\)/);
    const none = await check(edit('board-Edge_Cuts.gbr'));
    expect(none.reason).toMatch(/missing layer\(s\) Edge_Cuts;.*FAIL no Edge_Cuts outline to measure/);
  });

  it('fails a layer plotted twice', async () => {
    const v = await check({ ...ref, 'copy-F_Cu.gbr': ref['board-F_Cu.gbr']! });
    expect(v.reason).toMatch(
      /FAIL layers F_Cu, .* present; F_Cu is in 2 files \(board-F_Cu\.gbr, copy-F_Cu\.gbr\)/,
    );
  });

  it('fails a board file under the zip name, a corrupt zip, a zip of no Gerbers and a zip bomb', async () => {
    const pcb = await checkBytes('(kicad_pcb (version 20211014) (generator pcbnew)\n');
    expect(pcb).toMatchObject({ passed: false, score: 0 });
    expect(pcb.reason).toBe('gerbers.zip is not a zip archive (starts with "(kicad_pcb (")');
    const whole = await readFile(path.join(FIX, 'divider.zip'));
    const cut = await checkBytes(whole.subarray(0, whole.length - 40));
    expect(cut.reason).toMatch(/^gerbers\.zip: corrupt zip/);
    const readme = await check({ 'README.txt': 'nothing here' });
    expect(readme.reason).toMatch(/no Gerber or drill file among 1 file\(s\) \(README\.txt\)/);
    const bomb = await check(
      { ...ref, 'pad.gbr': 'G04 x*\n'.repeat(200_000) },
      { ...params, max_unpacked_mb: 1 },
    );
    expect(bomb.reason).toBe('gerbers.zip unpacks to more than max_unpacked_mb');
  });
});

describe('the Gerber reader', () => {
  it('measures inch files and arc outlines (a full circle, a rounded rectangle) in mm', () => {
    const head = '%FSLAX25Y25*%\n%MOIN*%\n%TF.FileFunction,Profile,NP*%\n%ADD10C,0.00400*%\nD10*\n';
    const inch = parseGerber(`${head}X0Y0D02*\nX100000D01*\nY50000D01*\nX0D01*\nY0D01*\nM02*\n`);
    expect(inch).toMatchObject({ fileFunction: 'Profile,NP', objects: 4 });
    expect(inch.bbox).toEqual({ minX: 0, minY: 0, maxX: 25.4, maxY: 12.7 });
    const mmHead = '%FSLAX46Y46*%\n%MOMM*%\nG04 #@! TF.FileFunction,Profile,NP*\n%ADD10C,0.1*%\nD10*\nG75*\n';
    const circle = parseGerber(
      `${mmHead}X60000000Y-50000000D02*\nG03X60000000Y-50000000I-10000000J0D01*\nM02*\n`,
    );
    expect(circle.fileFunction).toBe('Profile,NP');
    const c = circle.bbox ?? { minX: 0, minY: 0, maxX: 0, maxY: 0 };
    expect([c.minX, c.minY, c.maxX, c.maxY].map((v) => Number(v.toFixed(9)))).toEqual([40, -60, 60, -40]);
    // 30 x 20 with 2 mm corner radii: the arcs' extremes are the straight edges' ends.
    const rounded = parseGerber(
      `${mmHead}X2000000Y0D02*\nG01X28000000Y0D01*\nG03X30000000Y2000000I0J2000000D01*\nG01X30000000Y18000000D01*\n` +
        `G03X28000000Y20000000I-2000000J0D01*\nG01X2000000D01*\nG03X0Y18000000I0J-2000000D01*\nG01Y2000000D01*\n` +
        `G03X2000000Y0I2000000J0D01*\nM02*\n`,
    );
    expect(rounded.bbox).toEqual({ minX: 0, minY: 0, maxX: 30, maxY: 20 });
    const region = parseGerber(
      `${mmHead}G36*\nX0Y0D02*\nX1000000Y0D01*\nY1000000D01*\nX0Y0D01*\nG37*\nM02*\n`,
    );
    expect(region.objects).toBe(1);
  });

  it('names layers from file functions, file names and param spellings', () => {
    expect(layerOfFunction('Copper,L1,Top')).toBe('F_Cu');
    expect(layerOfFunction('Copper,L4,Bot')).toBe('B_Cu');
    expect(layerOfFunction('Copper,L3,Inr')).toBe('In2_Cu');
    expect(layerOfFunction('Soldermask,Bot')).toBe('B_Mask');
    expect(layerOfFunction('Legend,Top')).toBe('F_SilkS');
    expect(layerOfFunction('Plated,1,2,PTH')).toBe('Drill');
    expect(layerOfFunction('AssemblyDrawing,Top')).toBeNull();
    expect(layerOfName('x/board-F_Silkscreen.gbr')).toBe('F_SilkS');
    expect(layerOfName('board-In1.Cu.gbr')).toBe('In1_Cu');
    expect(layerOfName('BOARD.GBL')).toBe('B_Cu');
    expect(layerOfName('board.g2')).toBe('In2_Cu');
    expect(layerOfName('board.gko')).toBe('Edge_Cuts');
    expect(layerOfName('notes.txt')).toBeNull();
    expect(canonLayer('F.Cu')).toBe('F_Cu');
    expect(canonLayer('profile')).toBe('Edge_Cuts');
    expect(GerberCheckParams.parse({ layers: ['F.Cu', 'edge.cuts'] }).layers).toEqual(['F_Cu', 'Edge_Cuts']);
    expect(criterionProblem('gerber.check', { layers: ['Top_Copper'] })?.message).toMatch(
      /a KiCad layer name/,
    );
  });
});

// Keeps the fixture folder and zip in step: the zip is what the sandbox made, the folder its content.
it('has a fixture folder that matches the fixture zip', async () => {
  const zip = await JSZip.loadAsync(await readFile(path.join(FIX, 'divider.zip')));
  for (const f of Object.values(zip.files)) expect(await f.async('string'), f.name).toBe(ref[f.name]);
  expect(Object.keys(zip.files).sort()).toEqual(Object.keys(ref).sort());
  await writeFile(path.join(dir.path, 'ok'), '');
});
