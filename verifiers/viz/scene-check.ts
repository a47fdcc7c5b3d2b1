/**
 * The check of a `SceneDump` against a scene spec (`spec.ts`). Every failed item is named with
 * measured, expected and tolerance; the verdict passes only when every item does. What an object
 * claims about itself (extras, custom properties) is named beside its failures, never measured.
 */
import type { z } from 'zod';
import type { Verdict } from '../types.js';
import {
  distance,
  maxAbsDiff,
  quatAngleDeg,
  quatFromEulerDeg,
  rotate,
  vecAngleDeg,
  type Quat,
  type SceneDump,
  type SceneObject,
  type Vec3,
} from './scene.js';
import type { ObjectSpec, SceneSpec } from './spec.js';

/** One compared item. */
export interface SceneCheck {
  /** e.g. `Camera.location`. */
  item: string;
  ok: boolean;
  measured: unknown;
  expected: unknown;
  tolerance?: unknown;
  /** Why, when it failed. */
  why?: string;
  /** What the checked object claims about itself (extras, custom properties): named, never used. */
  claims?: string;
}

/** Measured values are reported to 0.1 mm (float32 noise of exporters hidden). */
const r4 = (x: number): number => Number(x.toFixed(4));
const v4 = (v: readonly number[]): number[] => v.map(r4);

/** Compares `scene` with `spec`, item by item. */
export function checkScene(scene: SceneDump, spec: SceneSpec): SceneCheck[] {
  const tol = spec.tolerance;
  const out: SceneCheck[] = [];
  const add = (c: SceneCheck): void => void out.push(c);
  for (const want of spec.objects) {
    const found = scene.objects.filter((o) => o.name === want.name);
    const o = found[0];
    if (o === undefined) {
      const names = scene.objects.map((x) => x.name);
      const elsewhere = scene.outside?.find((x) => x.name === want.name);
      // The scene is named only when the file holds objects outside it.
      const inScene =
        scene.scene === undefined || (scene.outside ?? []).length === 0 ? '' : ` in scene "${scene.scene}"`;
      add({
        item: want.name,
        ok: false,
        measured: null,
        expected: 'present',
        why:
          `no object named "${want.name}"${inScene} (have: ${names.slice(0, 12).join(', ') || 'none'})` +
          (elsewhere === undefined
            ? ''
            : `; a node of that name is ${elsewhere.where}, which is not shown, so it does not count`),
      });
      continue;
    }
    if (found.length > 1)
      add({ item: `${want.name}`, ok: false, measured: found.length, expected: 1, why: 'name is ambiguous' });
    checkObject(o, want, tol, (c) => add(o.claims === undefined ? c : { ...c, claims: o.claims }));
  }
  for (const want of spec.materials) {
    const m = scene.materials.find((x) => x.name === want.name);
    if (m === undefined) {
      add({
        item: `material ${want.name}`,
        ok: false,
        measured: null,
        expected: 'present',
        why: `no material named "${want.name}" (have: ${scene.materials.map((x) => x.name).join(', ') || 'none'})`,
      });
      continue;
    }
    if (want.base_color !== undefined) {
      const got = m.baseColor.slice(0, want.base_color.length);
      const d = maxAbsDiff(got, want.base_color);
      add({
        item: `material ${want.name}.base_color`,
        ok: d <= tol.color,
        measured: v4(got),
        expected: want.base_color,
        tolerance: tol.color,
        why: `off by ${r4(d)} in a channel`,
      });
    }
    for (const k of ['metallic', 'roughness'] as const) {
      const e = want[k];
      if (e === undefined) continue;
      const g = m[k];
      add({
        item: `material ${want.name}.${k}`,
        ok: g !== undefined && Math.abs(g - e) <= tol.factor,
        measured: g === undefined ? null : r4(g),
        expected: e,
        tolerance: tol.factor,
        why: g === undefined ? 'not set' : `off by ${r4(Math.abs(g - e))}`,
      });
    }
  }
  for (const [type, n] of Object.entries(spec.counts)) {
    const got =
      type === 'material' ? scene.materials.length : scene.objects.filter((o) => o.type === type).length;
    add({ item: `count of ${type}`, ok: got === n, measured: got, expected: n, why: `${got} ≠ ${n}` });
  }
  if (spec.active_camera !== undefined)
    add({
      item: 'active camera',
      ok: scene.activeCamera === spec.active_camera,
      measured: scene.activeCamera ?? null,
      expected: spec.active_camera,
      why: 'a different camera is active',
    });
  if (spec.render?.engine !== undefined)
    add({
      item: 'render engine',
      ok: scene.render?.engine === spec.render.engine,
      measured: scene.render?.engine ?? null,
      expected: spec.render.engine,
      why: 'another engine',
    });
  if (spec.render?.resolution !== undefined)
    add({
      item: 'render resolution',
      ok: maxAbsDiff(scene.render?.resolution ?? [0, 0], spec.render.resolution) === 0,
      measured: scene.render?.resolution ?? null,
      expected: spec.render.resolution,
      why: 'another resolution',
    });
  return out;
}

type Tol = SceneSpec['tolerance'];
type WantObject = z.infer<typeof ObjectSpec>;

function checkObject(o: SceneObject, want: WantObject, tol: Tol, add: (c: SceneCheck) => void): void {
  const n = want.name;
  // World checks keep their historical item names; local ones are marked.
  const local = want.space === 'local';
  const trs = local ? o.local : o;
  const sp = local ? ' (local)' : '';
  if (want.type !== undefined)
    add({
      item: `${n}.type`,
      ok: o.type === want.type,
      measured: o.type,
      expected: want.type,
      why: 'another type',
    });
  if (want.parent !== undefined)
    add({
      item: `${n}.parent`,
      ok: o.parent === want.parent,
      measured: o.parent,
      expected: want.parent,
      why: o.parent === null ? 'at the root' : `child of "${o.parent}"`,
    });
  if (want.location !== undefined) {
    const d = distance(trs.translation, want.location);
    add({
      item: `${n}.location${sp}`,
      ok: d <= tol.position,
      measured: v4(trs.translation),
      expected: want.location,
      tolerance: tol.position,
      why: `${r4(d)} units away`,
    });
  }
  const wantQ: Quat | undefined =
    want.rotation_quat ?? (want.rotation_euler_deg ? quatFromEulerDeg(want.rotation_euler_deg) : undefined);
  if (wantQ !== undefined) {
    const a = quatAngleDeg(trs.rotation, wantQ);
    add({
      item: `${n}.rotation${sp}`,
      ok: a <= tol.angle_deg,
      measured: v4(trs.rotation),
      expected: want.rotation_euler_deg ? { euler_deg: want.rotation_euler_deg, quat: v4(wantQ) } : wantQ,
      tolerance: `${tol.angle_deg}°`,
      why: `rotated ${r4(a)}° away`,
    });
  }
  if (want.scale !== undefined) {
    const d = maxAbsDiff(trs.scale, want.scale);
    add({
      item: `${n}.scale${sp}`,
      ok: d <= tol.scale,
      measured: v4(trs.scale),
      expected: want.scale,
      tolerance: tol.scale,
      why: `off by ${r4(d)} on an axis`,
    });
  }
  if (want.look_at !== undefined) {
    const dir = rotate(o.rotation, [0, 0, -1]);
    const to: Vec3 = [
      want.look_at[0] - o.translation[0],
      want.look_at[1] - o.translation[1],
      want.look_at[2] - o.translation[2],
    ];
    const a = vecAngleDeg(dir, to);
    add({
      item: `${n}.look_at`,
      ok: a <= tol.angle_deg,
      measured: { direction: v4(dir) },
      expected: { target: want.look_at },
      tolerance: `${tol.angle_deg}°`,
      why: `aims ${r4(a)}° away from the target`,
    });
  }
  if (want.materials !== undefined) {
    const missing = want.materials.filter((m) => !o.materials.includes(m));
    add({
      item: `${n}.materials`,
      ok: missing.length === 0,
      measured: o.materials,
      expected: want.materials,
      why: `missing ${missing.join(', ')}`,
    });
  }
  if (want.camera !== undefined) checkCamera(o, want.camera, tol, add);
  if (want.light !== undefined) checkLight(o, want.light, tol, add);
}

function checkCamera(
  o: SceneObject,
  want: NonNullable<WantObject['camera']>,
  tol: Tol,
  add: (c: SceneCheck) => void,
): void {
  const n = o.name;
  const c = o.camera;
  if (c === undefined) {
    add({ item: `${n}.camera`, ok: false, measured: o.type, expected: 'a camera', why: 'not a camera' });
    return;
  }
  if (want.type !== undefined)
    add({
      item: `${n}.camera.type`,
      ok: c.type === want.type,
      measured: c.type,
      expected: want.type,
      why: 'another projection',
    });
  if (want.yfov_deg !== undefined) {
    const got = c.yfov === undefined ? undefined : (c.yfov * 180) / Math.PI;
    add({
      item: `${n}.camera.yfov_deg`,
      ok: got !== undefined && Math.abs(got - want.yfov_deg) <= tol.angle_deg,
      measured: got === undefined ? null : r4(got),
      expected: want.yfov_deg,
      tolerance: `${tol.angle_deg}°`,
      why: got === undefined ? 'no field of view' : `off by ${r4(Math.abs(got - want.yfov_deg))}°`,
    });
  }
  if (want.lens_mm !== undefined) {
    const got = c.lensMm;
    add({
      item: `${n}.camera.lens_mm`,
      ok: got !== undefined && Math.abs(got - want.lens_mm) <= tol.relative * want.lens_mm,
      measured: got ?? null,
      expected: want.lens_mm,
      tolerance: `${tol.relative * 100} %`,
      why: got === undefined ? 'no focal length' : `off by ${r4(Math.abs(got - want.lens_mm))} mm`,
    });
  }
}

function checkLight(
  o: SceneObject,
  want: NonNullable<WantObject['light']>,
  tol: Tol,
  add: (c: SceneCheck) => void,
): void {
  const n = o.name;
  const l = o.light;
  if (l === undefined) {
    add({ item: `${n}.light`, ok: false, measured: o.type, expected: 'a light', why: 'not a light' });
    return;
  }
  if (want.type !== undefined)
    add({
      item: `${n}.light.type`,
      ok: l.type === want.type,
      measured: l.type,
      expected: want.type,
      why: 'another light type',
    });
  if (want.energy !== undefined)
    add({
      item: `${n}.light.energy`,
      ok: Math.abs(l.energy - want.energy) <= tol.relative * want.energy,
      measured: r4(l.energy),
      expected: want.energy,
      tolerance: `${tol.relative * 100} %`,
      why: `off by ${r4(Math.abs(l.energy - want.energy))}`,
    });
  if (want.color !== undefined) {
    const d = maxAbsDiff(l.color, want.color);
    add({
      item: `${n}.light.color`,
      ok: d <= tol.color,
      measured: v4(l.color),
      expected: want.color,
      tolerance: tol.color,
      why: `off by ${r4(d)} in a channel`,
    });
  }
}

/** The verdict over all checks of a scene read from `rel`. An empty spec fails (nothing to check). */
export function sceneVerdict(rel: string, checks: readonly SceneCheck[]): Verdict {
  const failed = checks.filter((c) => !c.ok);
  const pick = (k: 'measured' | 'expected' | 'tolerance'): Record<string, unknown> =>
    Object.fromEntries(checks.filter((c) => c[k] !== undefined).map((c) => [c.item, c[k]]));
  const base = { measured: pick('measured'), expected: pick('expected'), tolerance: pick('tolerance') };
  if (checks.length === 0)
    return { passed: false, score: 0, ...base, reason: `${rel}: the criterion asks for nothing to check` };
  if (failed.length === 0)
    return {
      passed: true,
      score: 1,
      ...base,
      reason: `${rel}: all ${checks.length} scene checks within tolerance (${checks.map((c) => `${c.item} ${JSON.stringify(c.measured)}`).join(', ')})`,
    };
  const named = new Set<string>();
  const say = (c: SceneCheck): string => {
    const claim = c.claims === undefined || named.has(c.claims) ? '' : `; its ${c.claims} are not evidence`;
    if (c.claims !== undefined) named.add(c.claims);
    return `${c.item}: ${c.why ?? 'differs'} (measured ${JSON.stringify(c.measured)}, expected ${JSON.stringify(c.expected)}${
      c.tolerance === undefined ? '' : `, tolerance ${JSON.stringify(c.tolerance)}`
    })${claim}`;
  };
  return {
    passed: false,
    score: 0,
    ...base,
    reason: `${rel}: ${failed.length} of ${checks.length} scene checks failed: ${failed.slice(0, 6).map(say).join('; ')}${
      failed.length > 6 ? `; and ${failed.length - 6} more` : ''
    }`,
  };
}
