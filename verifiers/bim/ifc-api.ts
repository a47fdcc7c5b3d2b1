/**
 * One web-ifc instance per process (its wasm is initialised once, on first use), and opening IFC
 * bytes safely: a file that is not ISO-10303-21 text, is truncated (no `END-ISO-10303-21;`), has
 * an unsupported schema or that web-ifc cannot parse becomes an `ArtifactInvalidError` with the
 * reason, never a crash.
 */
import { IfcAPI } from 'web-ifc';
import { ArtifactInvalidError } from '../errors.js';

let shared: Promise<IfcAPI> | undefined;

/** The process-wide web-ifc API, initialised on first call (≈ 40 ms). */
export function ifcApi(): Promise<IfcAPI> {
  shared ??= (async () => {
    const api = new IfcAPI();
    await api.Init();
    return api;
  })();
  shared.catch(() => (shared = undefined));
  return shared;
}

/** Schemas web-ifc reads faithfully. */
const SCHEMAS = ['IFC2X3', 'IFC4', 'IFC4X3'];

/**
 * Checks that `bytes` look like a complete IFC STEP file and opens them. The caller must
 * `api.CloseModel(id)` when done. Throws `ArtifactInvalidError` naming what is wrong.
 *
 * @param label the file name used in messages
 */
export function openIfc(api: IfcAPI, bytes: Uint8Array, label: string): number {
  const head = Buffer.from(bytes.subarray(0, 4096)).toString('latin1');
  const tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 512))).toString('latin1');
  if (!/^\s*ISO-10303-21\s*;/.test(head))
    throw new ArtifactInvalidError(`${label} is not IFC: it does not start with "ISO-10303-21;"`);
  const schema = /FILE_SCHEMA\s*\(\s*\(\s*'([^']*)'/i.exec(head)?.[1]?.toUpperCase();
  if (schema === undefined) throw new ArtifactInvalidError(`${label} has no FILE_SCHEMA in its header`);
  if (!SCHEMAS.some((s) => schema.startsWith(s)))
    throw new ArtifactInvalidError(
      `${label} declares schema ${schema}; expected one of ${SCHEMAS.join(', ')}`,
    );
  if (!/END-ISO-10303-21\s*;\s*$/.test(tail))
    throw new ArtifactInvalidError(`${label} is truncated: it does not end with "END-ISO-10303-21;"`);
  let id: number;
  try {
    id = api.OpenModel(bytes);
  } catch (err) {
    throw new ArtifactInvalidError(`web-ifc could not parse ${label}: ${String(err)}`, { cause: err });
  }
  if (id < 0) throw new ArtifactInvalidError(`web-ifc could not open ${label}`);
  if (api.GetAllLines(id).size() === 0) {
    api.CloseModel(id);
    throw new ArtifactInvalidError(`${label} has no entities in its DATA section`);
  }
  return id;
}
