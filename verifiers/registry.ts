/**
 * The verifier registry: name → verifier. The built-in verifiers are registered on load; tests and
 * extensions may add their own with `registerVerifier`.
 */
import { BUILTIN_VERIFIERS } from './builtins.js';
import { UnknownVerifierError, VerifierError } from './errors.js';
import { fieldPath } from '../tasks/index.js';
import { checkParams } from './define.js';
import { closest } from './param-keys.js';
import { taskFilesOf } from './params.js';
import type { Verifier } from './types.js';

const registry = new Map<string, Verifier>();

/** Adds a verifier. Throws `VerifierError` (`VERIFIER_DUPLICATE`) when the name is taken. */
export function registerVerifier(v: Verifier): void {
  if (registry.has(v.name))
    throw new VerifierError('VERIFIER_DUPLICATE', `verifier "${v.name}" is already registered`);
  registry.set(v.name, v);
}

/**
 * The verifier registered under `name`. Throws `UnknownVerifierError` listing the known names.
 *
 * @example getVerifier('stl.geometry').params.parse({ property: 'genus', expected: 4 })
 */
export function getVerifier(name: string): Verifier {
  const v = registry.get(name);
  if (v === undefined) throw new UnknownVerifierError(name, [...registry.keys()].sort());
  return v;
}

/** Every registered verifier, sorted by name (for `engiloop verifiers`). */
export function listVerifiers(): Verifier[] {
  return [...registry.values()].sort((a, b) => a.name.localeCompare(b.name));
}

for (const v of BUILTIN_VERIFIERS) registerVerifier(v);

/** A problem with a criterion: its path inside the criterion (`params.abs_tl`) and what is wrong. */
export interface CriterionProblem {
  path: string;
  message: string;
}

/**
 * Checks a criterion against the registry when a task loads: the verifier exists, no param key is
 * unknown (the closest valid key is named), and the params match the schema. Null when it is fine.
 *
 * @example criterionProblem('stl.geometry', { property: 'volume', expected: 1, abs_tl: 0.1 })
 * // { path: 'params.abs_tl', message: 'unknown param of stl.geometry — did you mean abs_tol?' }
 */
export function criterionProblem(verifier: string, params: Record<string, unknown>): CriterionProblem | null {
  const v = registry.get(verifier);
  if (v === undefined) {
    const known = [...registry.keys()].sort();
    const near = closest(verifier, known);
    return {
      path: 'verifier',
      message: `${new UnknownVerifierError(verifier, known).message}${near ? ` — did you mean ${near}?` : ''}`,
    };
  }
  const r = checkParams(verifier, v.params, params);
  return r.ok ? null : { path: r.path ? `params.${r.path}` : 'params', message: r.message };
}

/** Files of the task folder a criterion's params name (hidden testbenches, references, goal images). */
function criterionTaskFiles(
  verifier: string,
  params: Record<string, unknown>,
): { path: string; file: string }[] {
  const v = registry.get(verifier);
  if (v === undefined) return [];
  return taskFilesOf(v.params, params).map((f) => ({ path: `params.${fieldPath(f.path)}`, file: f.file }));
}

/** The registry's rules for the task loader (`loadSuite(dir, { verifiers: verifierRules })`). */
export const verifierRules = { problem: criterionProblem, taskFiles: criterionTaskFiles };
