/**
 * `calculix.result`: one quantity of a CalculiX analysis — `converged`, `max_displacement`,
 * `displacement` (at the node nearest a point, over a box or a `.dat` set), `max_von_mises`,
 * `reaction`, `equilibrium` (|ΣRF + F| ≤ rel_tol·|F|) or `frequency` — judged on results ccx
 * produced from the delivered deck, never on what a result file says about itself:
 *
 * 1. The deck (the deliverable itself when it is an `.inp`, else `deck`, by default the result
 *    file's sibling `.inp`) is read with its `*INCLUDE`s, from the delivered files only, and
 *    checked: steps, sets, loads, materials and supports (`deck-check.ts`).
 * 2. It is solved again by ccx in a fresh tool container under `timeout_sec`.
 * 3. A delivered `.frd`/`.dat`/`.sta` must be what that solve writes, value by value (within
 *    `match_tol`); otherwise the verdict is "result file not produced by the solver from the
 *    delivered deck", with the first difference and the quantity delivered vs re-solved.
 * 4. A static solution that is a huge rigid-body motion is named singular (ccx exits 0 on it).
 * 5. The quantity is measured on the fresh results.
 *
 * No deck delivered → a failing verdict saying so, unless the task opts out with
 * `trust_results: true` (then the delivered file is read as it is, and the reason says so).
 * The verdict channel (the job name and the exit-status line of the solve) is named with the
 * verification's nonce.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { defineVerifier } from '../define.js';
import { deliverablePath } from '../deliverable.js';
import { ArtifactInvalidError, isArtifactInvalid } from '../errors.js';
import { round } from '../judge-value.js';
import type { Verdict } from '../types.js';
import { expectedOf, judgeQuantity, tryMeasure, valuePair } from './calculix-judge.js';
import { CalculixResultParams } from './calculix-params.js';
import { loadSource, RESULT_EXTS, solveDeck, solveFailure, type Sources } from './calculix-source.js';
import { checkDeck, type DeckReport } from './deck-check.js';
import { loadDeck, type LoadedDeck } from './deck-load.js';
import { describeMotion, rigidMotion } from './rigid.js';
import { findBlock } from './frd-parse.js';
import { compareResults } from './result-compare.js';

/** The `calculix.result` verifier. */
export const calculixResult = defineVerifier({
  name: 'calculix.result',
  description:
    'Re-solves the delivered CalculiX deck with ccx (after checking its sets, loads, materials and supports), requires delivered .frd/.dat/.sta to match that solve, names singular models; then convergence, displacement, von Mises, reactions, equilibrium, frequency',
  params: CalculixResultParams,
  sealed: true,
  async judge({ ctx, params: p, file, nonce }): Promise<Verdict> {
    const limit = p.parse_timeout_sec * 1000;
    const expected = expectedOf(p);
    const fail = (reason: string, measured?: unknown): Verdict => ({
      passed: false,
      score: 0,
      expected,
      ...(measured === undefined ? {} : { measured }),
      reason: `${file.rel}: ${reason}`,
    });
    const ext = path.extname(file.rel).toLowerCase();
    const isDeck = ext === '.inp';
    if (!isDeck && !(RESULT_EXTS as readonly string[]).includes(ext))
      throw new ArtifactInvalidError(
        `${ext || 'no extension'}: not a CalculiX deck or result file (.inp, .frd, .dat, .sta)`,
      );
    if (p.trust_results) {
      if (isDeck)
        return fail(
          'task error: trust_results: true, but the deliverable is the deck, which is always solved',
        );
      const src = loadSource(ext, file.bytes, limit);
      return judgeQuantity(p, src, file.rel, 'read as delivered, not re-solved (trust_results: true)');
    }
    const deckRel = isDeck ? file.rel : (p.deck ?? sibling(file.rel));
    if (isDeck && p.deck !== undefined && p.deck !== file.rel)
      return fail(`task error: deck ${p.deck} given, but the deliverable is the deck ${file.rel} itself`);
    const delivered = isDeck ? undefined : loadSource(ext, file.bytes, limit);
    const of = isDeck ? '' : `the deck ${deckRel}: `;
    if (!isDeck && !(await exists(ctx, deckRel)))
      return fail(
        `no deck to re-solve: ${deckRel} was not delivered. A result file counts only as the solve of the delivered deck that makes it; deliver the deck (named by \`deck\`), or set trust_results: true`,
        delivered === undefined ? undefined : { delivered: tryMeasure(p, delivered) },
      );
    let loaded: LoadedDeck;
    try {
      loaded = await loadDeck(ctx, deckRel, limit);
    } catch (err) {
      if (isArtifactInvalid(err)) return fail(`${of}${err.message}`);
      throw err;
    }
    const report = checkDeck(loaded.deck);
    if (report.defects.length > 0) {
      const more = report.defects.length > 3 ? `; and ${report.defects.length - 3} more` : '';
      return fail(`${of}${report.defects.slice(0, 3).join('; ')}${more}`, {
        deck: report.summary,
        defects: report.defects.length,
      });
    }
    const solve = await solveDeck(ctx, loaded, p, nonce);
    const failure = solveFailure(solve, p.timeout_sec);
    if (solve.timedOut) return fail(`re-solving ${deckRel}: ${failure}`, { deck: report.summary });
    let note = `re-solved with ccx from ${deckRel}`;
    if (delivered !== undefined) {
      const cmp = compareResults(delivered, solve.sources, p.match_tol);
      const pair = { delivered: tryMeasure(p, delivered), resolved: tryMeasure(p, solve.sources) };
      if (!cmp.same)
        return fail(
          `result file not produced by the solver from the delivered deck ${deckRel} (${cmp.why}${failure ? `; the re-solve: ${failure}` : ''}${valuePair(p, pair.delivered, pair.resolved)})`,
          pair,
        );
      note += `; the delivered ${path.posix.basename(file.rel)} matches it (${cmp.note})`;
    }
    if (failure !== null && p.quantity !== 'converged')
      return fail(`re-solving ${deckRel} fails: ${failure}${unreadable(solve.unreadable)}`, {
        deck: report.summary,
      });
    if (failure === null) {
      const singular = singularReason(loaded, report, solve.sources);
      if (singular !== null) return fail(singular.reason, singular.measured);
    }
    if (report.notes.length > 0) note += `; ${report.notes.join('; ')}`;
    return judgeQuantity(p, solve.sources, file.rel, note, failure);
  },
});

/** `beam.frd` → `beam.inp`. */
function sibling(rel: string): string {
  const ext = path.posix.extname(rel);
  return `${rel.slice(0, rel.length - ext.length)}.inp`;
}

async function exists(ctx: { artifactsDir: string }, rel: string): Promise<boolean> {
  const host = deliverablePath(ctx, rel);
  if (host === null) return false;
  return (await stat(host).catch(() => null))?.isFile() ?? false;
}

const unreadable = (xs: string[]): string => (xs.length === 0 ? '' : ` (unreadable: ${xs.join('; ')})`);

/** A static solution that is rigid-body motion: the reason and the measured values, or null. */
function singularReason(
  loaded: LoadedDeck,
  report: DeckReport,
  src: Sources,
): { reason: string; measured: unknown } | null {
  if (!loaded.deck.steps.some((s) => s.procedure === 'STATIC')) return null;
  const u = displacementsOf(src);
  if (u === null) return null;
  const bad = rigidMotion(loaded.deck, report.parts, u).filter((m) => m.singular);
  if (bad.length === 0) return null;
  const m = bad[0]!;
  const part =
    report.parts.length > 1 ? ` (part ${report.parts.indexOf(m.part) + 1} of ${report.parts.length})` : '';
  return {
    reason: `singular model: the static solution of ${loaded.rel} is a rigid-body motion${part} — ${describeMotion(m)}: the supports do not hold the model (ccx exited 0 and printed "Job finished" all the same)`,
    measured: {
      max_displacement: round(m.maxU),
      model_size: round(m.size),
      deformation_share: round(m.deformShare),
      nonfinite_nodes: m.nonFinite,
    },
  };
}

/** Node id → displacement from the last static DISP block of the `.frd`, else the `.dat` tables. */
function displacementsOf(src: Sources): ((id: number) => readonly number[] | undefined) | null {
  if (src.frd !== undefined) {
    const statics = src.frd.blocks.filter((b) => b.name === 'DISP' && !/MODAL|BUCKL/i.test(b.analysis));
    const b = statics.at(-1) ?? findBlock(src.frd, 'DISP');
    if (b !== undefined && b.components.length >= 3) {
      const nc = b.components.length;
      const at = new Map(b.ids.map((id, k) => [id, k]));
      return (id) => {
        const k = at.get(id);
        return k === undefined ? undefined : Array.from(b.values.subarray(k * nc, k * nc + 3));
      };
    }
  }
  const tables = src.dat?.tables.filter((t) => t.kind.startsWith('displacements')) ?? [];
  if (tables.length === 0) return null;
  const map = new Map<number, number[]>();
  for (const t of tables) for (const r of t.rows) map.set(r.id, r.values);
  return (id) => map.get(id);
}
