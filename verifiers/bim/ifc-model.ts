/**
 * `ifc.model`: reopens a delivered IFC with web-ifc in-process, checks its referential integrity
 * (every `#ref` resolves; no shape representation is left unused) and then checks it in three parts —
 * semantic (counts by type, names, predefined types, property-set and quantity values, GlobalIds
 * kept), topological (storey containment, aggregation, doors filling openings in walls) and
 * geometric (bounding boxes and volumes of web-ifc's meshes, base quantities against the mesh,
 * unchanged geometry against a reference IFC). The score is the weighted mean of each part's
 * fraction of passed checks; the verdict passes when every required part passes all its checks, and
 * every check reports what it measured, passing or not.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { IfcAPI } from 'web-ifc';
import { defineVerifier } from '../define.js';
import { deadline } from '../timeout.js';
import type { Verdict } from '../types.js';
import { ifcApi, openIfc } from './ifc-api.js';
import { runIfcChecks, type IfcCheckResult, type IfcModelView } from './ifc-checks.js';
import { elementGeometry, readFacts, type IfcGeometryFacts } from './ifc-facts.js';
import {
  checkIntegrity,
  describeDangling,
  describeMalformed,
  describeOrphan,
  stepEntities,
  type IfcIntegrity,
} from './ifc-integrity.js';
import { IfcModelParams, IfcPart } from './ifc-params.js';

/** Per-part tally reported in `measured`. */
export interface IfcPartTally {
  passed: number;
  total: number;
  score: number;
}

/** The `ifc.model` verifier. */
export const ifcModel = defineVerifier({
  name: 'ifc.model',
  description:
    'Reopens an IFC with web-ifc: referential integrity, then semantic (types, names, psets), topological (containment, openings) and geometric (bbox, volume, quantities, untouched) checks',
  params: IfcModelParams,
  async judge({ ctx, params: p, file }): Promise<Verdict> {
    const fail = (reason: string, measured?: unknown): Verdict => ({
      passed: false,
      score: 0,
      ...(measured === undefined ? {} : { measured }),
      expected: summariseExpected(p),
      reason,
    });
    if (file.bytes.length > p.max_mb * 1e6)
      return fail(
        `${file.rel} is ${(file.bytes.length / 1e6).toFixed(1)} MB, over the ${p.max_mb} MB limit`,
        file.bytes.length,
      );
    let refBytes: Buffer | undefined;
    if (p.untouched !== undefined) {
      refBytes = await readFile(path.join(ctx.taskDir, p.untouched.reference)).catch(() => undefined);
      if (refBytes === undefined)
        return fail(`task error: reference ${p.untouched.reference} is not in the task folder`);
    }
    const api = await ifcApi();
    // Everything from here runs synchronously on the shared web-ifc instance; the deadline is
    // checked between entities and meshes. Broken files throw ArtifactInvalidError, which
    // defineVerifier turns into a failing verdict naming the file.
    const clock = deadline(p.timeout_sec * 1000, `reading ${file.rel}`);
    const opened: number[] = [];
    try {
      const id = openIfc(api, file.bytes, file.rel);
      opened.push(id);
      const integrity = integrityOf(api, id, file.bytes, clock.check);
      const measuredIntegrity = {
        entities: integrity.entities,
        references: integrity.references,
        malformed: integrity.malformed.length,
        dangling: integrity.dangling.length,
        orphaned_representations: integrity.orphans.length,
      };
      if (integrity.malformed.length > 0) {
        const n = integrity.malformed.length;
        return fail(
          `${file.rel}: ${n} malformed entit${n === 1 ? 'y' : 'ies'}: ${integrity.malformed.slice(0, 3).map(describeMalformed).join('; ')}${n > 3 ? `; and ${n - 3} more` : ''}`,
          { integrity: measuredIntegrity },
        );
      }
      if (integrity.dangling.length > 0) {
        const n = integrity.dangling.length;
        return fail(
          `${file.rel}: ${n} dangling reference${n === 1 ? '' : 's'}: ${integrity.dangling.slice(0, 3).map(describeDangling).join('; ')}${n > 3 ? `; and ${n - 3} more` : ''}`,
          { integrity: measuredIntegrity },
        );
      }
      if (integrity.orphans.length > 0 && p.orphans === 'fail') {
        const n = integrity.orphans.length;
        return fail(
          `${file.rel}: ${n} orphaned shape representation${n === 1 ? '' : 's'}: ${integrity.orphans.slice(0, 3).map(describeOrphan).join('; ')}${n > 3 ? `; and ${n - 3} more` : ''}`,
          { integrity: measuredIntegrity, orphans: integrity.orphans.map((o) => `#${o.id}`) },
        );
      }
      const model = view(api, id, clock.check);
      let reference: IfcModelView | undefined;
      if (refBytes !== undefined) {
        const refId = openIfc(api, refBytes, p.untouched!.reference);
        opened.push(refId);
        reference = view(api, refId, clock.check);
      }
      const v = judge(p, runIfcChecks(p, model, reference), file.rel, model.facts.schema);
      const orphanNote =
        integrity.orphans.length > 0
          ? `, ${integrity.orphans.length} orphaned representation(s) reported`
          : '';
      return {
        ...v,
        measured: {
          ...(v.measured as object),
          integrity: {
            ...measuredIntegrity,
            ...(integrity.orphans.length > 0 ? { orphans: integrity.orphans.map(describeOrphan) } : {}),
          },
        },
        reason: `${v.reason}; integrity: ${integrity.references} references among ${integrity.entities} entities resolve${orphanNote}`,
      };
    } finally {
      for (const id of opened) api.CloseModel(id);
    }
  },
});

/** Integrity of the open model `id` (its text is `bytes`): products and types are the roots. */
function integrityOf(api: IfcAPI, id: number, bytes: Buffer, tick: () => void): IfcIntegrity {
  const roots: number[] = [];
  for (const t of ['IFCPRODUCT', 'IFCTYPEPRODUCT']) {
    const v = api.GetLineIDsWithType(id, api.GetTypeCodeFromName(t), true);
    for (let i = 0; i < v.size(); i++) roots.push(v.get(i));
  }
  return checkIntegrity(stepEntities(bytes.toString('latin1'), tick), roots);
}

function view(api: IfcAPI, id: number, tick: () => void): IfcModelView {
  const facts = readFacts(api, id, tick);
  const cache = new Map<number, IfcGeometryFacts | undefined>();
  return {
    facts,
    geometry(e: number) {
      if (!cache.has(e)) {
        tick();
        cache.set(e, elementGeometry(api, id, e));
      }
      return cache.get(e);
    },
  };
}

function summariseExpected(p: IfcModelParams): unknown {
  return {
    ...(p.counts.length > 0 ? { counts: p.counts } : {}),
    ...(p.elements.length > 0 ? { elements: p.elements.map((e) => ({ ...e })) } : {}),
    ...(p.untouched !== undefined
      ? { untouched: { reference: p.untouched.reference, except: p.untouched.except } }
      : {}),
  };
}

/** Tallies the parts, applies weights and the required parts. */
function judge(p: IfcModelParams, results: IfcCheckResult[], rel: string, schema: string): Verdict {
  const parts = IfcPart.options.filter((part) => results.some((r) => r.part === part));
  const tally: Partial<Record<IfcPart, IfcPartTally>> = {};
  for (const part of parts) {
    const mine = results.filter((r) => r.part === part);
    const passed = mine.filter((r) => r.passed).length;
    tally[part] = { passed, total: mine.length, score: passed / mine.length };
  }
  const required = p.required ?? parts;
  const weightSum = parts.reduce((s, part) => s + p.weights[part], 0);
  const score =
    weightSum === 0 ? 0 : parts.reduce((s, part) => s + p.weights[part] * tally[part]!.score, 0) / weightSum;
  const failedRequired = required.filter(
    (part) => (tally[part]?.passed ?? 0) < (tally[part]?.total ?? 0) || tally[part] === undefined,
  );
  const passed = failedRequired.length === 0;
  const failures = results.filter((r) => !r.passed).map((r) => `[${r.part}] ${r.detail}`);
  const parts_text = parts.map((part) => `${part} ${tally[part]!.passed}/${tally[part]!.total}`).join(', ');
  return {
    passed,
    score,
    measured: {
      schema,
      ...tally,
      failures,
      checks: results.map((r) => `${r.passed ? 'ok' : 'FAIL'} [${r.part}] ${r.detail}`),
    },
    expected: { required, weights: p.weights, ...(summariseExpected(p) as object) },
    tolerance: 'all checks of each required part',
    reason: `${rel} (${schema}): ${parts_text} → ${passed ? 'pass' : `fail (${failedRequired.join(', ')} required)`}${
      failures.length > 0
        ? `; ${failures.slice(0, 3).join('; ')}`
        : `; measured: ${results
            .slice(0, 6)
            .map((r) => r.detail)
            .join('; ')}${results.length > 6 ? `; and ${results.length - 6} more (see measured.checks)` : ''}`
    }`,
  };
}
