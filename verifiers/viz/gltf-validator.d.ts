/** Types of the Khronos glTF validator's npm build (`gltf-validator`, which ships none). */
declare module 'gltf-validator' {
  /** One issue of a validation report. Severity: 0 error, 1 warning, 2 info, 3 hint. */
  export interface ValidatorMessage {
    code: string;
    message: string;
    severity: 0 | 1 | 2 | 3;
    /** JSON pointer into the asset, e.g. `/meshes/0/primitives/0/indices`. */
    pointer?: string;
    /** Byte offset, for issues of the binary container. */
    offset?: number;
  }
  export interface ValidationReport {
    uri?: string;
    mimeType?: string;
    validatorVersion: string;
    issues: {
      numErrors: number;
      numWarnings: number;
      numInfos: number;
      numHints: number;
      messages: ValidatorMessage[];
      truncated: boolean;
    };
    info?: { version?: string; generator?: string; totalVertexCount?: number; totalTriangleCount?: number };
  }
  export interface ValidationOptions {
    uri?: string;
    format?: 'glb' | 'gltf';
    externalResourceFunction?: (uri: string) => Promise<Uint8Array>;
    writeTimestamp?: boolean;
    maxIssues?: number;
    ignoredIssues?: string[];
    onlyIssues?: string[];
    severityOverrides?: Record<string, number>;
  }
  export function validateBytes(data: Uint8Array, options?: ValidationOptions): Promise<ValidationReport>;
  export function version(): string;
  const validator: {
    validateBytes: typeof validateBytes;
    version: typeof version;
  };
  export default validator;
}
