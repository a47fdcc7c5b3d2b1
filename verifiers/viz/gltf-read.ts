/**
 * Reading glTF 2.0 (`.gltf` JSON with embedded or sibling resources, or binary `.glb`) into a
 * `SceneDump` with @gltf-transform/core. Sibling resources must stay inside the artifacts folder.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Logger, NodeIO, type Document } from '@gltf-transform/core';
import { ArtifactInvalidError } from '../errors.js';
import { decompose, type SceneDump, type SceneObject } from './scene.js';

const GLB_MAGIC = 0x46546c67; // 'glTF'

/** What kind of glTF `bytes` is, or why it is none. */
export function sniffGltf(bytes: Buffer): { kind: 'glb' | 'json' } | { kind: 'invalid'; reason: string } {
  if (bytes.length >= 12 && bytes.readUInt32LE(0) === GLB_MAGIC) {
    const declared = bytes.readUInt32LE(8);
    if (declared !== bytes.length)
      return {
        kind: 'invalid',
        reason: `GLB header declares ${declared} bytes but the file has ${bytes.length} (truncated?)`,
      };
    return { kind: 'glb' };
  }
  const head = bytes.subarray(0, 64).toString('utf8').trimStart();
  if (head.startsWith('{')) return { kind: 'json' };
  return {
    kind: 'invalid',
    reason: 'neither a GLB (no "glTF" magic) nor glTF JSON (does not start with "{")',
  };
}

/**
 * Parses glTF `bytes` read from `file` (inside `root`). Throws `ArtifactInvalidError` with a readable
 * message for anything that is not a loadable glTF 2.0 asset.
 */
export async function readGltf(bytes: Buffer, file: string, root: string): Promise<Document> {
  const io = new NodeIO().setLogger(new Logger(Logger.Verbosity.SILENT));
  const kind = sniffGltf(bytes);
  if (kind.kind === 'invalid') throw new ArtifactInvalidError(kind.reason);
  try {
    if (kind.kind === 'glb') return await io.readBinary(new Uint8Array(bytes));
    let json: { asset?: { version?: string }; buffers?: { uri?: string }[]; images?: { uri?: string }[] };
    try {
      json = JSON.parse(bytes.toString('utf8')) as typeof json;
    } catch (err) {
      throw new ArtifactInvalidError(`not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    if (json.asset?.version === undefined || !String(json.asset.version).startsWith('2'))
      throw new ArtifactInvalidError(
        `not a glTF 2.0 asset (asset.version = ${JSON.stringify(json.asset?.version)})`,
      );
    const resources: Record<string, Uint8Array<ArrayBuffer>> = {};
    for (const r of [...(json.buffers ?? []), ...(json.images ?? [])]) {
      if (r.uri === undefined || r.uri.startsWith('data:') || r.uri in resources) continue;
      const full = path.resolve(path.dirname(file), decodeURIComponent(r.uri));
      if (!full.startsWith(path.resolve(root) + path.sep))
        throw new ArtifactInvalidError(`resource ${r.uri} points outside the delivered files`);
      try {
        resources[r.uri] = new Uint8Array(await readFile(full));
      } catch (err) {
        throw new ArtifactInvalidError(`resource ${r.uri} could not be read`, { cause: err });
      }
    }
    return await io.readJSON({ json: json as never, resources });
  } catch (err) {
    if (err instanceof ArtifactInvalidError) throw err;
    throw new ArtifactInvalidError(`glTF could not be parsed: ${(err as Error).message}`, { cause: err });
  }
}

/** The scene model of a parsed glTF document: every node, with world transforms. */
export function gltfScene(doc: Document): SceneDump {
  const root = doc.getRoot();
  const objects: SceneObject[] = root.listNodes().map((node) => {
    const { t, r, s } = decompose(node.getWorldMatrix());
    const mesh = node.getMesh();
    const cam = node.getCamera();
    const o: SceneObject = {
      name: node.getName(),
      type: mesh ? 'mesh' : cam ? 'camera' : 'empty',
      translation: t,
      rotation: r,
      scale: s,
      materials: [...new Set((mesh?.listPrimitives() ?? []).map((p) => p.getMaterial()?.getName() ?? ''))],
    };
    if (cam)
      o.camera =
        cam.getType() === 'perspective'
          ? { type: 'perspective', yfov: cam.getYFov() }
          : { type: 'orthographic' };
    return o;
  });
  const materials = root.listMaterials().map((m) => {
    const [r, g, b, a] = m.getBaseColorFactor();
    return {
      name: m.getName(),
      baseColor: [r, g, b, a] as [number, number, number, number],
      metallic: m.getMetallicFactor(),
      roughness: m.getRoughnessFactor(),
    };
  });
  return { objects, materials };
}
