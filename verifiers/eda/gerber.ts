/**
 * `gerber.check`: reopens a fabrication package of RS-274X (Gerber X2 or X1) files and Excellon
 * drill files — a zip or a folder — in-process, and checks which layers it holds, the board
 * outline's size and that copper layers carry copper. A file's layer is read from its
 * `%TF.FileFunction` attribute (or the X1 comment `G04 #@! TF.FileFunction`), else from its name
 * (KiCad `board-F_Cu.gbr`, Protel `board.gtl`); Excellon files (`M48` header) are the `Drill` layer.
 * The outline is the bounding box of the Edge_Cuts (Profile) centre lines, arcs included, in mm —
 * the size KiCad gives the board. Each check given is one part of the score; the verdict passes
 * when all pass.
 */
import { z } from 'zod';
import { defineVerifier } from '../define.js';
import type { Verdict } from '../types.js';
import { canonLayer, LAYER, readGerberFile, readPackage, type GerberFile } from './gerber-read.js';

export { canonLayer, layerOfFunction, layerOfName, parseGerber } from './gerber-read.js';

const layerName = z
  .string()
  .transform(canonLayer)
  .refine((n) => LAYER.test(n), 'a KiCad layer name such as F_Cu, B_Mask, In1_Cu, Edge_Cuts or Drill');

/** Params of `gerber.check`. */
export const GerberCheckParams = z.object({
  /** Layers that must each be in exactly one file, e.g. `[F_Cu, B_Cu, F_Mask, B_Mask, Edge_Cuts]`. */
  layers: z.array(layerName).min(1),
  /** Board outline (Edge_Cuts centre lines): width (X) and height (Y) in mm. */
  outline: z
    .object({
      width_mm: z.number().positive(),
      height_mm: z.number().positive(),
      tol_mm: z.number().nonnegative().default(0.1),
    })
    .optional(),
  /** Exact number of copper layers in the package. */
  copper_layers: z.number().int().positive().optional(),
  /** Layers that must hold at least one draw, arc, flash or region. Default: every copper layer. */
  nonempty: z.array(layerName).optional(),
  /** Limits: archive size and the total unpacked size, in MB. Default 20 and 100. */
  max_mb: z.number().positive().default(20),
  max_unpacked_mb: z.number().positive().default(100),
});
export type GerberCheckParams = z.infer<typeof GerberCheckParams>;

interface Check {
  name: string;
  passed: boolean;
  detail: string;
}

const isCopper = (l: string | null): boolean => l !== null && /_Cu$/.test(l);
const mm = (v: number): string => v.toFixed(2);

/** The `gerber.check` verifier. */
export const gerberCheck = defineVerifier({
  name: 'gerber.check',
  description:
    'Reopens a zip or folder of RS-274X Gerbers (+ Excellon): layers present (FileFunction or file names), Edge_Cuts outline size, non-empty copper',
  params: GerberCheckParams,
  reads: 'path',
  judge: ({ params, file }) => checkGerberPackage(file.path, file.rel, params),
});

/**
 * The `gerber.check` verdict on the package at `full` (a zip, or a folder when called directly: the
 * runner delivers regular files), named `rel` in reasons.
 */
export async function checkGerberPackage(full: string, rel: string, p: GerberCheckParams): Promise<Verdict> {
  const pkg = await readPackage(full, rel, {
    maxBytes: p.max_mb * 1048576,
    maxUnpacked: p.max_unpacked_mb * 1048576,
  });
  if ('error' in pkg) return { passed: false, score: 0, expected: { layers: p.layers }, reason: pkg.error };
  const files = pkg.files.map((f) => readGerberFile(f.name, f.bytes));
  const fab = files.filter((f) => f.kind !== 'other');
  const measured = {
    files: fab.map((f) => ({ file: f.name, layer: f.layer, via: f.via, objects: f.objects })),
    other: files.filter((f) => f.kind === 'other').map((f) => f.name),
  };
  if (fab.length === 0)
    return {
      passed: false,
      score: 0,
      measured,
      reason: `${rel}: no Gerber or drill file among ${files.length} file(s) (${files.map((f) => f.name).join(', ') || 'empty'})`,
    };
  const byLayer = new Map<string, GerberFile[]>();
  for (const f of fab) if (f.layer) byLayer.set(f.layer, [...(byLayer.get(f.layer) ?? []), f]);
  const checks: Check[] = [];
  const broken = fab.filter((f) => f.problem);
  checks.push({
    name: 'valid',
    passed: broken.length === 0,
    detail:
      broken.length === 0
        ? `${fab.length} valid file(s)`
        : `invalid: ${broken.map((f) => `${f.name}: ${f.problem}`).join('; ')}`,
  });
  const missing = p.layers.filter((l) => !byLayer.has(l));
  // A drill set may be split (plated and non-plated holes); any other layer belongs in one file.
  const twice = [...byLayer].filter(([l, fs]) => fs.length > 1 && l !== 'Drill');
  const unknown = fab.filter((f) => f.layer === null).map((f) => f.name);
  checks.push({
    name: 'layers',
    passed: missing.length === 0 && twice.length === 0,
    detail:
      (missing.length === 0
        ? `layers ${p.layers.join(', ')} present`
        : `missing layer(s) ${missing.join(', ')}`) +
      twice
        .map(([l, fs]) => `; ${l} is in ${fs.length} files (${fs.map((f) => f.name).join(', ')})`)
        .join('') +
      (unknown.length ? ` (no layer known for ${unknown.join(', ')})` : ''),
  });
  const copper = [...byLayer.keys()].filter(isCopper);
  if (p.copper_layers !== undefined)
    checks.push({
      name: 'copper_layers',
      passed: copper.length === p.copper_layers,
      detail: `${copper.length} copper layer(s) (${copper.join(', ') || 'none'}), expected ${p.copper_layers}`,
    });
  const mustHave = p.nonempty ?? [...new Set([...p.layers.filter(isCopper), ...copper])];
  // A required layer that is missing is the layers check's failure; here only what is there counts.
  const present = mustHave.filter((l) => byLayer.has(l));
  const absent = mustHave.filter((l) => !byLayer.has(l) && !p.layers.includes(l));
  const empty = present.filter((l) => byLayer.get(l)!.every((f) => f.objects === 0));
  const namesOf = (l: string) =>
    byLayer
      .get(l)!
      .map((f) => f.name)
      .join(', ');
  checks.push({
    name: 'nonempty',
    passed: empty.length + absent.length === 0,
    detail:
      empty.length + absent.length === 0
        ? `${present.join(', ') || 'no layer'} not empty`
        : [
            ...empty.map((l) => `${l} is empty (${namesOf(l)}: no draws, flashes or regions)`),
            ...absent.map((l) => `${l} is missing`),
          ].join(', '),
  });
  let outline: { width_mm: number; height_mm: number } | null = null;
  if (p.outline !== undefined) {
    const o = p.outline;
    const b = byLayer.get('Edge_Cuts')?.[0]?.bbox;
    if (b) outline = { width_mm: b.maxX - b.minX, height_mm: b.maxY - b.minY };
    const ok =
      outline !== null &&
      Math.abs(outline.width_mm - o.width_mm) <= o.tol_mm &&
      Math.abs(outline.height_mm - o.height_mm) <= o.tol_mm;
    checks.push({
      name: 'outline',
      passed: ok,
      detail:
        outline === null
          ? 'no Edge_Cuts outline to measure'
          : `outline ${mm(outline.width_mm)} × ${mm(outline.height_mm)} mm (expected ${o.width_mm} × ${o.height_mm} ± ${o.tol_mm})`,
    });
  }
  const passed = checks.every((c) => c.passed);
  return {
    passed,
    score: checks.filter((c) => c.passed).length / checks.length,
    measured: {
      ...measured,
      layers: [...byLayer.keys()],
      copper_layers: copper.length,
      ...(outline ? { outline } : {}),
    },
    expected: {
      layers: p.layers,
      ...(p.outline ? { outline: { width_mm: p.outline.width_mm, height_mm: p.outline.height_mm } } : {}),
      ...(p.copper_layers ? { copper_layers: p.copper_layers } : {}),
      nonempty: mustHave,
    },
    tolerance: p.outline ? { outline_mm: p.outline.tol_mm } : {},
    reason: `${rel} (${fab.length} fabrication file(s)${measured.other.length ? `, ${measured.other.length} other` : ''}): ${checks.map((c) => `${c.passed ? 'ok' : 'FAIL'} ${c.detail}`).join('; ')}`,
  };
}
