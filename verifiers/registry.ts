/**
 * The verifier registry: name → verifier. The built-in verifiers are registered on load; tests and
 * extensions may add their own with `registerVerifier`.
 */
import { BUILTIN_VERIFIERS } from './builtins.js';
import { UnknownVerifierError, VerifierError } from './errors.js';
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

/**
 * Checks a criterion against the registry when a task loads: the verifier exists and the params
 * match its schema. Returns a message naming the problem, or `null`. Fits `tasks`' `CriterionCheck`.
 */
export function criterionProblem(verifier: string, params: Record<string, unknown>): string | null {
  const v = registry.get(verifier);
  if (v === undefined) return new UnknownVerifierError(verifier, [...registry.keys()].sort()).message;
  const r = v.params.safeParse(params);
  return r.success
    ? null
    : `invalid params for ${verifier}: ${r.error.issues.map((i) => `${i.path.join('.') || '(params)'}: ${i.message}`).join('; ')}`;
}
