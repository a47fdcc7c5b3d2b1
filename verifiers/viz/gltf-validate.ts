/**
 * Validating a glTF/GLB with the Khronos glTF validator (npm `gltf-validator`, the reference
 * implementation compiled from Dart) before anything reads its scene: accessor and index bounds,
 * buffer-view ranges, GLB chunk lengths, JSON schema. A file a viewer would render wrong or refuse
 * is never judged by its node list alone.
 */
import validator, { type ValidationReport, type ValidatorMessage } from 'gltf-validator';
import { ArtifactInvalidError } from '../errors.js';

/** One issue, as reported: code, JSON pointer (or byte offset) and message. */
export interface GltfIssue {
  code: string;
  /** `error`, `warning`, `info` or `hint`. */
  severity: 'error' | 'warning' | 'info' | 'hint';
  /** JSON pointer, e.g. `/meshes/0/primitives/0/indices`, or `@<byte offset>` for container issues. */
  where: string;
  message: string;
}

/** What the validator found. */
export interface GltfValidation {
  validator: string;
  /** Issues at or above the failing severity, in report order. */
  failing: GltfIssue[];
  counts: { errors: number; warnings: number; infos: number; hints: number };
  /** Every reported issue code with how often it occurred. */
  codes: Record<string, number>;
  truncated: boolean;
}

const SEVERITY = ['error', 'warning', 'info', 'hint'] as const;

function issue(m: ValidatorMessage): GltfIssue {
  return {
    code: m.code,
    severity: SEVERITY[m.severity] ?? 'error',
    where:
      m.pointer !== undefined && m.pointer !== '' ? m.pointer : m.offset !== undefined ? `@${m.offset}` : '/',
    message: m.message,
  };
}

/**
 * Runs the validator on `bytes`. External resources (a `.gltf`'s sibling `.bin` and images) come
 * from `resources` only (already read from inside the delivered files); any other URI is an error.
 *
 * @param failOn the lowest severity that fails: `error` (default) or `warning`.
 * @param ignore issue codes that never fail (they are still counted).
 */
export async function validateGltf(
  bytes: Buffer,
  o: {
    resources?: Record<string, Uint8Array>;
    failOn?: 'error' | 'warning';
    ignore?: readonly string[];
    maxIssues?: number;
  } = {},
): Promise<GltfValidation> {
  let report: ValidationReport;
  try {
    report = await validator.validateBytes(new Uint8Array(bytes), {
      writeTimestamp: false,
      maxIssues: o.maxIssues ?? 200,
      externalResourceFunction: (uri) => {
        const r = o.resources?.[uri];
        return r === undefined
          ? Promise.reject(new Error(`resource ${uri} is not among the delivered files`))
          : Promise.resolve(r);
      },
    });
  } catch (err) {
    // The validator rejects only input it cannot classify as glTF or GLB at all.
    throw new ArtifactInvalidError(`the glTF validator could not read it: ${String(err)}`, { cause: err });
  }
  const worst = o.failOn === 'warning' ? 1 : 0;
  const ignore = new Set(o.ignore ?? []);
  const codes: Record<string, number> = {};
  for (const m of report.issues.messages) codes[m.code] = (codes[m.code] ?? 0) + 1;
  return {
    validator: `Khronos glTF validator ${report.validatorVersion}`,
    failing: report.issues.messages.filter((m) => m.severity <= worst && !ignore.has(m.code)).map(issue),
    counts: {
      errors: report.issues.numErrors,
      warnings: report.issues.numWarnings,
      infos: report.issues.numInfos,
      hints: report.issues.numHints,
    },
    codes,
    truncated: report.issues.truncated,
  };
}

/** `ACCESSOR_INDEX_OOB at /meshes/0/primitives/0/indices: Indices accessor element …`. */
export function describeIssue(i: GltfIssue): string {
  return `${i.code} at ${i.where}: ${i.message}`;
}
