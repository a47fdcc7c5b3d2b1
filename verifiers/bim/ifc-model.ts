/**
 * `ifc.model`: reopens a delivered IFC with web-ifc in-process and checks it in three parts —
 * semantic (counts by type, names, predefined types, property-set and quantity values, GlobalIds
 * kept), topological (storey containment, aggregation, doors filling openings in walls) and
 * geometric (bounding boxes and volumes of web-ifc's meshes, unchanged geometry against a reference
 * IFC). The score is the weighted mean of each part's fraction of passed checks; the verdict passes
 * when every required part passes all its checks.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { IfcAPI } from 'web-ifc';
import { readDeliverable } from '../deliverable.js';
import { isArtifactInvalid } from '../errors.js';
import { deadline } from '../timeout.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from '../types.js';
import { ifcApi, openIfc } from './ifc-api.js';
import { runIfcChecks, type IfcCheckResult, type IfcModelView } from './ifc-checks.js';
import { elementGeometry, readFacts, type IfcGeometryFacts } from './ifc-facts.js';
import { IfcModelParams, IfcPart } from './ifc-params.js';

/** Per-part tally reported in `measured`. */
export interface IfcPartTally {
  passed: number;
  total: number;
  score: number;
}

/** The `ifc.model` verifier. */
export const ifcModel: Verifier = {
  name: 'ifc.model',
  description:
    'Reopens an IFC with web-ifc and scores semantic (types, names, psets), topological (containment, openings) and geometric (bbox, volume, untouched) checks',
  params: IfcModelParams,
  async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
    const p = IfcModelParams.parse(criterion.params);
    const read = await readDeliverable(ctx, criterion);
    if ('verdict' in read) return read.verdict;
    const fail = (reason: string, measured?: unknown): Verdict => ({
      passed: false,
      score: 0,
      ...(measured === undefined ? {} : { measured }),
      expected: summariseExpected(p),
      reason,
    });
    if (read.bytes.length > p.max_mb * 1e6)
      return fail(
        `${read.rel} is ${(read.bytes.length / 1e6).toFixed(1)} MB, over the ${p.max_mb} MB limit`,
        read.bytes.length,
      );
    let refBytes: Buffer | undefined;
    if (p.untouched !== undefined) {
      refBytes = await readFile(path.join(ctx.taskDir, p.untouched.reference)).catch(() => undefined);
      if (refBytes === undefined)
        return fail(`task error: reference ${p.untouched.reference} is not in the task folder`);
    }
    const api = await ifcApi();
    // Everything from here runs synchronously on the shared web-ifc instance; the deadline is
    // checked between entities and meshes.
    const clock = deadline(p.timeout_sec * 1000, `reading ${read.rel}`);
    const opened: number[] = [];
    try {
      const model = view(api, openIfc(api, read.bytes, read.rel), clock.check, opened);
      const reference =
        refBytes === undefined
          ? undefined
          : view(api, openIfc(api, refBytes, p.untouched!.reference), clock.check, opened);
      return judge(p, runIfcChecks(p, model, reference), read.rel, model.facts.schema);
    } catch (err) {
      if (isArtifactInvalid(err)) return fail(err.message);
      throw err;
    } finally {
      for (const id of opened) api.CloseModel(id);
    }
  },
};

function view(api: IfcAPI, id: number, tick: () => void, opened: number[]): IfcModelView {
  opened.push(id);
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
export function judge(p: IfcModelParams, results: IfcCheckResult[], rel: string, schema: string): Verdict {
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
    reason: `${rel} (${schema}): ${parts_text} → ${passed ? 'pass' : `fail (${failedRequired.join(', ')} required)`}${failures.length > 0 ? `; ${failures.slice(0, 3).join('; ')}` : ''}`,
  };
}
