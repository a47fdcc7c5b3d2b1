/**
 * `defineVerifier`: the one way to write a verifier. It parses the params once (typed), refuses keys
 * the schema does not know, reads the deliverable, and turns every failure of the artifact (corrupt,
 * truncated, a parse or tool time-out) into a failing verdict the same way, so a verifier's `judge`
 * only says what it measured.
 */
import { randomBytes } from 'node:crypto';
import type { z, ZodType } from 'zod';
import { readDeliverable } from './deliverable.js';
import { isArtifactInvalid, isVerifierTimeout } from './errors.js';
import { fieldPath } from '../tasks/index.js';
import { unknownParams } from './param-keys.js';
import type { CriterionInput, Verdict, Verifier, VerifierContext } from './types.js';

/** The delivered artifact a judge looks at. */
export interface Artifact {
  /** Host path of the file (read-only for the verifier). */
  path: string;
  /** Its deliverable path, as task.yaml names it; verdict reasons start with it. */
  rel: string;
  /** The file's bytes (empty when the verifier reads `path` itself: `reads: 'path'`). */
  bytes: Buffer;
}

/** What `judge` gets. */
export interface Judging<P> {
  ctx: VerifierContext;
  criterion: CriterionInput;
  /** The params, parsed by the verifier's schema: typed, defaults filled in. */
  params: P;
  file: Artifact;
  /**
   * A fresh random token for this verification (hex), or the recorded one on replay. Sealed
   * verifiers name their verdict channel with it (testbench module, result markers), so a design
   * cannot name it; it is recorded in the verdict's `seal`.
   */
  nonce: string;
}

/** A verifier as written with `defineVerifier`. */
export interface VerifierSpec<S extends ZodType> {
  /** Registered name used in task.yaml, e.g. `stl.geometry`. */
  name: string;
  /** One line for `engiloop verifiers`. */
  description: string;
  /** Schema of the criterion's params. Keys it does not know are refused. */
  params: S;
  /** `bytes` (default): the file is read for the judge. `path`: only checked; the judge reads it. */
  reads?: 'bytes' | 'path';
  /** The verdict channel is named with the nonce; the verdict records it (`seal`). */
  sealed?: boolean;
  judge(j: Judging<z.output<S>>): Promise<Verdict> | Verdict;
}

/** The message for the first unknown key of `params`, or null when every key is known. */
function unknownParamProblem(
  name: string,
  schema: ZodType,
  params: unknown,
): { path: string; message: string } | null {
  const u = unknownParams(schema, params);
  if (u.length === 0) return null;
  const first = u[0]!;
  const hint =
    first.suggestion !== undefined
      ? ` — did you mean ${first.suggestion}?`
      : ` (known here: ${first.known.join(', ') || 'none'})`;
  const more =
    u.length > 1
      ? `; also unknown: ${u
          .slice(1)
          .map((x) => fieldPath(x.path))
          .join(', ')}`
      : '';
  return { path: fieldPath(first.path), message: `unknown param of ${name}${hint}${more}` };
}

/** The issues of a failed params parse, each with its path. */
function paramIssue(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues.map((i) => `${i.path.map(String).join('.') || '(params)'}: ${i.message}`).join('; ');
}

/** The outcome of `checkParams`: the parsed params, or the first problem (path inside `params`). */
export type ParamsCheck<T> =
  | { ok: true; data: T }
  | {
      ok: false;
      /** An unknown key, rather than a value the schema refuses. */ unknown: boolean;
      path: string;
      message: string;
    };

/**
 * Checks a criterion's params against a verifier's schema, the same way when a task loads and when
 * it is verified: an unknown key first (with the closest valid key), then the schema's own rules.
 */
export function checkParams<S extends ZodType>(
  name: string,
  schema: S,
  params: unknown,
): ParamsCheck<z.output<S>> {
  const unknown = unknownParamProblem(name, schema, params);
  if (unknown !== null) return { ok: false, unknown: true, ...unknown };
  const parsed = schema.safeParse(params);
  if (parsed.success) return { ok: true, data: parsed.data };
  return {
    ok: false,
    unknown: false,
    path: fieldPath(parsed.error.issues[0]!.path),
    message: `invalid params for ${name}: ${paramIssue(parsed.error.issues)}`,
  };
}

/**
 * Builds a registered verifier from a spec.
 *
 * @example
 * export const sizeCheck = defineVerifier({
 *   name: 'file.size', description: 'deliverable size in bytes',
 *   params: z.object({ max: z.number() }),
 *   judge: ({ params, file }) => ({ passed: file.bytes.length <= params.max, score: 1, reason: '…' }),
 * });
 */
export function defineVerifier<S extends ZodType>(spec: VerifierSpec<S>): Verifier {
  return {
    name: spec.name,
    description: spec.description,
    params: spec.params,
    sealed: spec.sealed ?? false,
    async verify(ctx: VerifierContext, criterion: CriterionInput): Promise<Verdict> {
      const fail = (reason: string): Verdict => ({ passed: false, score: 0, reason });
      const parsed = checkParams(spec.name, spec.params, criterion.params);
      if (!parsed.ok)
        return fail(`task error: ${parsed.unknown ? `params.${parsed.path}: ` : ''}${parsed.message}`);
      const read = await readDeliverable(ctx, criterion, spec.reads ?? 'bytes');
      if ('verdict' in read) return read.verdict;
      const nonce = ctx.nonce ?? randomBytes(8).toString('hex');
      try {
        const v = await spec.judge({ ctx, criterion, params: parsed.data, file: read, nonce });
        return spec.sealed ? { ...v, seal: nonce } : v;
      } catch (err) {
        if (isArtifactInvalid(err) || isVerifierTimeout(err)) return fail(`${read.rel}: ${err.message}`);
        throw err;
      }
    },
  };
}
